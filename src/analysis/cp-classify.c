/* cp-classify.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-classify.h"

/* XProf kernel_stats_utils.cc kTensorCoreKernelNamePatterns (from NVIDIA
 * PyProf); the TensorBoard plugin's TC_Allowlist is the same without i16832.
 * After the NULL marker come Chokepoint's additions, suggested in
 * diagnosis-rules.md §6 and tested in test-classify.c: Hopper warp-group MMA,
 * CUTLASS tensor-op kernels, cuBLASLt nvjet kernels, flash / fused attention. */
static const char * const tc_patterns[] = {
  "16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2",
  "direct_group", "first_layer_wgrad_kernel", "h1688", "h884", "hmma",
  "i16832", "i8816", "s884", "s1688", "xmma_gemm", "xmma_implicit_gemm",
  "xmma_sparse_conv", "xmma_sparse_gemm", "xmma_warp_specialized_implicit_gemm",
  /* Chokepoint additions. */
  "gmma", "tensorop", "nvjet", "flash_fwd", "flash_bwd", "fmha",
  NULL
};

/* 16-bit (and 8-bit float) precision in a kernel name. XProf looks only for
 * "half" and "fp16", so bf16 counts as 32-bit there (a known blind spot); the
 * extra patterns follow §6. Matched case-insensitively. */
static const char * const half_patterns[] = {
  "half", "fp16", "f16", "bfloat16", "h884", "h1688", "h16816", "hmma",
  "fp8", "e4m3", "e5m2",
  NULL
};

/* Kernels doing matmul / convolution work: the device side of the
 * tensor-core-eligible ops, for captures without host ops. */
static const char * const gemm_patterns[] = {
  "gemm", "gemv", "matmul", "conv1d", "conv2d", "conv3d", "convolve",
  "convolution", "_conv_", "wgrad", "dgrad", "fprop", "xmma", "cutlass",
  "nvjet", "cublas",
  NULL
};

/* PyTorch tensor_core.py TC_OP_Allowlist (aten ops and their backward). */
static const char * const tc_aten_ops[] = {
  "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d",
  "aten::conv_tbc", "aten::conv_transpose1d", "aten::conv_transpose2d",
  "aten::conv_transpose3d", "aten::convolution", "aten::cudnn_convolution",
  "aten::cudnn_convolution_transpose", "aten::prelu", "aten::addmm",
  "aten::addmv", "aten::addr", "aten::matmul", "aten::mm", "aten::mv",
  "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
  "aten::chain_matmul", "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell",
  "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell",
  "aten::rnn_tanh_cell", "aten::rnn_relu_cell", "aten::convolution_backward",
  "aten::cudnn_convolution_backward", "aten::_scaled_mm",
  NULL
};

/* Autograd backward nodes of those ops (also inside
 * "autograd::engine::evaluate_function: MmBackward0"). */
static const char * const tc_backward_prefixes[] = {
  "AddmmBackward", "AddmvBackward", "AddrBackward", "MmBackward", "MvBackward",
  "BmmBackward", "BaddbmmBackward", "AddbmmBackward", "ConvolutionBackward",
  "CudnnConvolutionBackward", "CudnnConvolutionTransposeBackward",
  "MatmulBackward", "LinearBackward", "PreluBackward",
  NULL
};

/* TensorFlow IsOpTensorCoreEligible (X7): suffixes and substrings. */
static const char * const tc_tf_suffixes[] = {
  "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D",
  "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
  "DepthwiseConv2dNativeBackpropInput", "/MatMul", "FusedMatMul", "/CudnnRNN",
  "XlaDot", "XlaDotV2",
  NULL
};
static const char * const tc_tf_contains[] = {
  "BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop",
  NULL
};

const char * const *
cp_classify_tensor_core_patterns (void)
{
  return tc_patterns;
}

static gboolean
has_any (const char         *hay,
         const char * const *needles)
{
  for (guint i = 0; needles[i] != NULL; i++)
    if (strstr (hay, needles[i]) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
has_suffix_any (const char         *s,
                const char * const *suffixes)
{
  for (guint i = 0; suffixes[i] != NULL; i++)
    if (g_str_has_suffix (s, suffixes[i]))
      return TRUE;
  return FALSE;
}

static gboolean
equals_any (const char         *s,
            const char * const *values)
{
  for (guint i = 0; values[i] != NULL; i++)
    if (strcmp (s, values[i]) == 0)
      return TRUE;
  return FALSE;
}

/* CUDA / HIP runtime and driver API names: cudaX..., __cudaX..., cuX... and
 * hipX... where X is an upper-case letter. */
static gboolean
is_api_name (const char *name)
{
  if (g_str_has_prefix (name, "__cuda"))
    return TRUE;
  if (g_str_has_prefix (name, "cuda"))
    return g_ascii_isupper (name[4]);
  if (g_str_has_prefix (name, "hip"))
    return g_ascii_isupper (name[3]);
  if (g_str_has_prefix (name, "cu"))
    return g_ascii_isupper (name[2]);
  return FALSE;
}

static CpTransferKind
copy_kind_from_name (const char *name)
{
  if (strstr (name, "HtoD") || strstr (name, "H2D"))
    return CP_TRANSFER_HTOD;
  if (strstr (name, "DtoH") || strstr (name, "D2H"))
    return CP_TRANSFER_DTOH;
  if (strstr (name, "DtoD") || strstr (name, "D2D"))
    return CP_TRANSFER_DTOD;
  if (strstr (name, "PtoP") || strstr (name, "P2P"))
    return CP_TRANSFER_PTOP;
  return CP_TRANSFER_OTHER;
}

guint32
cp_classify_name (const char *name)
{
  char stack_buf[256];
  g_autofree char *heap_buf = NULL;
  char *lower;
  gsize len;
  guint32 flags = 0;

  if (name == NULL || *name == '\0')
    return 0;

  len = strlen (name);
  if (len < sizeof stack_buf)
    lower = stack_buf;
  else
    lower = heap_buf = g_malloc (len + 1);
  for (gsize i = 0; i <= len; i++)
    lower[i] = g_ascii_tolower (name[i]);

  /* Device activity. */
  if (has_any (name, tc_patterns))
    flags |= CP_NAME_TENSOR_CORE;
  if (has_any (lower, half_patterns))
    flags |= CP_NAME_HALF;
  if (g_str_has_prefix (lower, "nccl") || g_str_has_prefix (lower, "rccl") ||
      g_str_has_prefix (lower, "hccl") || strstr (name, "ncclKernel") ||
      strstr (name, "ncclDevKernel"))
    flags |= CP_NAME_COLLECTIVE;
  if (g_str_has_prefix (name, "Memcpy") || g_str_has_prefix (name, "hipMemcpy ") ||
      g_str_has_prefix (name, "memcpy "))
    {
      flags |= CP_NAME_MEMCPY;
      flags |= ((guint32) copy_kind_from_name (name)) << CP_NAME_COPY_SHIFT;
    }
  if (g_str_has_prefix (name, "Memset") || g_str_has_prefix (name, "hipMemset ") ||
      g_str_has_prefix (name, "memset "))
    flags |= CP_NAME_MEMSET;
  if (strstr (name, "Pageable"))
    flags |= CP_NAME_PAGEABLE;
  if (strcmp (name, "Stream Sync") == 0 || strcmp (name, "Event Sync") == 0 ||
      strcmp (name, "Context Sync") == 0 || strcmp (name, "Stream Wait Event") == 0 ||
      g_str_has_prefix (name, "Stream Wait Event"))
    flags |= CP_NAME_DEVICE_WAIT;
  if (has_any (lower, gemm_patterns))
    flags |= CP_NAME_GEMM_LIKE;

  /* Host API calls. */
  if (is_api_name (name))
    {
      flags |= CP_NAME_RUNTIME;
      if (strstr (name, "Synchronize"))
        flags |= CP_NAME_SYNC;
      else if (strstr (name, "Launch"))
        flags |= CP_NAME_LAUNCH;
      else if (strstr (name, "Memcpy") || strstr (name, "Memset"))
        {
          if (strstr (name, "Async"))
            flags |= CP_NAME_LAUNCH;
          else
            flags |= CP_NAME_SYNC_COPY;
        }
    }

  /* Framework ops and annotations. */
  if (strstr (name, "ProfilerStep") != NULL)
    flags |= CP_NAME_STEP;
  if (g_str_has_prefix (name, "enumerate(DataLoader)#") ||
      g_str_has_prefix (name, "enumerate(DataPipe)#") ||
      g_str_has_prefix (name, "IteratorGetNext") ||
      (strstr (name, "dataloader.py") && strstr (name, "__next__")))
    flags |= CP_NAME_INPUT_WAIT;
  if (strstr (name, "_SingleProcessDataLoaderIter") != NULL)
    flags |= CP_NAME_LOADER_SINGLE;
  if (g_str_has_prefix (name, "enumerate(DataLoader)#"))
    flags |= CP_NAME_LOADER_NEXT;
  if (g_str_has_prefix (name, "Optimizer.step#"))
    flags |= CP_NAME_OPTIMIZER_STEP;
  if (strstr (name, "DistributedDataParallel.forward") ||
      strstr (name, "nn.Module: DistributedDataParallel"))
    flags |= CP_NAME_DDP;
  else if (strstr (name, "DataParallel.forward") ||
           strstr (name, "nn.Module: DataParallel") ||
           (strstr (name, "data_parallel.py") && strstr (name, "forward")))
    flags |= CP_NAME_DATAPARALLEL;
  if (g_str_has_prefix (name, "gloo:"))
    flags |= CP_NAME_HOST_COMM;
  if (strcmp (name, "aten::item") == 0 || strcmp (name, "aten::_local_scalar_dense") == 0)
    flags |= CP_NAME_ITEM;
  if (equals_any (name, tc_aten_ops) ||
      g_str_has_prefix (name, "aten::cudnn_convolution") ||
      (g_str_has_prefix (name, "aten::") && g_str_has_suffix (name, "_cell")) ||
      has_any (name, tc_backward_prefixes) ||
      has_suffix_any (name, tc_tf_suffixes) ||
      has_any (name, tc_tf_contains))
    flags |= CP_NAME_TC_ELIGIBLE;

  return flags;
}

CpTransferKind
cp_classify_copy_kind (guint32 flags)
{
  if ((flags & CP_NAME_MEMCPY) == 0)
    return (flags & CP_NAME_MEMSET) ? CP_TRANSFER_MEMSET : CP_TRANSFER_NONE;
  return (CpTransferKind) ((flags & CP_NAME_COPY_MASK) >> CP_NAME_COPY_SHIFT);
}

/* The cache */

#define CACHED (1u << 31)

struct _CpNameCache
{
  CpTrace  *trace;
  guint32  *flags;
  guint     n;
};

CpNameCache *
cp_name_cache_new (CpTrace *trace)
{
  CpNameCache *cache;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);

  cache = g_new0 (CpNameCache, 1);
  cache->trace = g_object_ref (trace);
  cache->n = cp_string_pool_size (cp_trace_get_string_pool (trace));
  cache->flags = g_new0 (guint32, MAX (cache->n, 1));
  return cache;
}

void
cp_name_cache_free (CpNameCache *cache)
{
  if (cache == NULL)
    return;
  g_clear_object (&cache->trace);
  g_free (cache->flags);
  g_free (cache);
}

guint32
cp_name_cache_lookup (CpNameCache *cache,
                      CpStr        name)
{
  guint32 f;

  if (G_UNLIKELY (name >= cache->n))
    return cp_classify_name (cp_trace_get_string (cache->trace, name));
  f = cache->flags[name];
  if (G_LIKELY (f & CACHED))
    return f & ~CACHED;
  f = cp_classify_name (cp_trace_get_string (cache->trace, name));
  cache->flags[name] = f | CACHED;
  return f;
}
