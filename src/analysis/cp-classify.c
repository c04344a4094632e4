/* cp-classify.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
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

/* Kernels that only move or lay out data, as a word of their name
 * (matched case-insensitively where a word starts, see has_word()):
 * transposes and permutes (MIOpen's batched_transpose_*, transpose_NCHW2CNHW,
 * fbgemm's permute_*), layout conversions (cuDNN's nchwToNhwcKernel),
 * copies and type conversions (PyTorch's direct_copy_kernel_cuda,
 * CatArrayBatchedCopy), fills and memsets (FillFunctor, masked_fill_kernel),
 * and MIOpen's SubTensorOp kernels (SetTensor, ScaleTensor, CopyTensor and
 * CastTensor on a tensor). */
static const char * const data_movement_words[] = {
  "transpose", "permute", "nchw2nhwc", "nhwc2nchw", "nchwtonhwc", "nhwctonchw",
  "copy", "fill", "zero", "memset", "memcpy", "subtensoropwith",
  NULL
};

/* The aten ops of an Inductor kernel's name that only move or lay out
 * data: a kernel fusing nothing else ("triton_poi_fused__to_copy_clone_0")
 * moves data, one that fuses an add with them does not. */
static const char * const data_movement_ops[] = {
  "_to_copy", "_unsafe_view", "alias", "as_strided", "cat", "clone", "constant_pad_nd",
  "convert_element_type", "copy", "detach", "expand", "fill", "flip", "full", "new_zeros",
  "permute", "repeat", "reshape", "select", "slice", "split", "split_with_sizes", "squeeze",
  "stack", "t", "transpose", "unbind", "unsqueeze", "view", "zeros", "zeros_like",
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

/* A needle (lower case) in lower, the lower-case copy of name, where a
 * word of name starts: after a character that is neither letter nor
 * digit, or at a capital after a small letter or a digit
 * ("CatArrayBatchedCopy", a mangled "9Transpose"); so "fill" is not
 * found in "BatchPrefill". A word after "non" is not one ("NonZeroOp"
 * counts, it does not fill). */
static gboolean
has_word (const char         *name,
          const char         *lower,
          const char * const *needles)
{
  for (guint i = 0; needles[i] != NULL; i++)
    for (const char *p = strstr (lower, needles[i]); p != NULL; p = strstr (p + 1, needles[i]))
      {
        gsize at = (gsize) (p - lower);

        if (at >= 3 && strncmp (p - 3, "non", 3) == 0)
          continue;
        if (at == 0 || !g_ascii_isalnum (name[at - 1]) ||
            (g_ascii_isupper (name[at]) && (g_ascii_islower (name[at - 1]) || g_ascii_isdigit (name[at - 1]))))
          return TRUE;
      }
  return FALSE;
}

/* Whether text (not empty) is made of data_movement_ops joined by '_', as
 * Inductor joins the ops it fuses: from the end, whether the text from
 * each position on is (no recursion: kernel names may be long). */
static gboolean
only_movement_ops (const char *text)
{
  gsize len = strlen (text);
  g_autofree gboolean *from = g_new0 (gboolean, len + 1);

  for (gsize i = len; i-- > 0;)
    for (guint w = 0; data_movement_ops[w] != NULL && !from[i]; w++)
      {
        gsize n = strlen (data_movement_ops[w]), e = i + n;

        if (strncmp (text + i, data_movement_ops[w], n) == 0 &&
            (e == len || (text[e] == '_' && e + 1 < len && from[e + 1])))
          from[i] = TRUE;
      }
  return len > 0 && from[0];
}

/* A kernel that only moves or lays out data: named so, and not a GEMM,
 * convolution, attention or collective kernel (whose template arguments
 * may name copies: CUTLASS's Copy_Atom); an Inductor kernel when every op
 * it fuses is such. */
static gboolean
moves_data (const char *name,
            const char *lower,
            guint32     flags)
{
  const char *kind;
  g_autofree char *fused = NULL;

  if (flags & (CP_NAME_GEMM_LIKE | CP_NAME_TENSOR_CORE | CP_NAME_COLLECTIVE))
    return FALSE;
  if (flags & (CP_NAME_MEMCPY | CP_NAME_MEMSET))
    return TRUE;
  if (cp_classify_inductor_kernel (name, &kind, &fused))
    return only_movement_ops (fused);
  return has_word (name, lower, data_movement_words);
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

/* XLA ops */

static const char * const xla_collectives[] = {
  "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
  "collective-broadcast", "ragged-all-to-all", "allreduce", "allgather",
  NULL
};

static const char * const xla_data_formatting[] = {
  "transpose", "reshape", "bitcast", "broadcast", "pad", "slice", "dynamic-slice",
  "dynamic-update-slice", "concatenate", "reverse", "gather", "scatter", "iota",
  "data formatting", "bitcast-convert", "copy-transpose",
  NULL
};

static const char * const xla_control_flow[] = {
  "while", "conditional", "call", "control flow", "tuple", "get-tuple-element",
  NULL
};

static gboolean
word_in (const char         *token,
         const char * const *words)
{
  for (guint i = 0; words[i] != NULL; i++)
    if (strcmp (token, words[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The opcode (or category) as a lower-case token with '-' for '_' and
 * without ".kd", ".N" and "_N" suffixes; *hlo_text is set when the name is
 * HLO text ("%x = shape opcode(...)"). */
static void
xla_token (const char *name,
           char       *out,
           gsize       size,
           gboolean   *hlo_text)
{
  const char *p = name, *eq;
  gsize n = 0;

  *hlo_text = FALSE;
  while (*p == ' ')
    p++;
  if (g_str_has_prefix (p, "ROOT "))
    p += 5;
  eq = strstr (p, " = ");
  if (eq != NULL && *p == '%')
    {
      /* Skip the shape: a tuple in parentheses or one word. */
      const char *q = eq + 3;

      *hlo_text = TRUE;
      if (*q == '(')
        {
          int depth = 0;

          for (; *q != '\0'; q++)
            {
              if (*q == '(')
                depth++;
              else if (*q == ')' && --depth == 0)
                {
                  q++;
                  break;
                }
            }
        }
      else
        while (*q != '\0' && *q != ' ')
          q++;
      while (*q == ' ')
        q++;
      p = q;
      for (; *p != '\0' && *p != '(' && *p != ' ' && n + 1 < size; p++)
        out[n++] = *p == '_' ? '-' : g_ascii_tolower (*p);
      out[n] = '\0';
      return;
    }
  if (*p == '%')
    p++;
  for (; *p != '\0' && *p != ' ' && *p != '(' && n + 1 < size; p++)
    out[n++] = *p == '_' ? '-' : g_ascii_tolower (*p);
  out[n] = '\0';
  if (n > 3 && strcmp (out + n - 3, ".kd") == 0)
    out[n -= 3] = '\0';
  /* Numeric suffixes: "fusion.12", "copy-done.2", "fusion-1". */
  for (;;)
    {
      gsize k = n;

      while (k > 0 && g_ascii_isdigit (out[k - 1]))
        k--;
      if (k == n || k < 2 || (out[k - 1] != '.' && out[k - 1] != '-'))
        break;
      n = k - 1;
      out[n] = '\0';
    }
}

static CpXlaOpClass
xla_class_of_token (const char *t)
{
  gsize len = strlen (t);
  gboolean async_end = g_str_has_suffix (t, "-done") || g_str_has_suffix (t, "-start") ||
                       g_str_has_suffix (t, "-update") || strcmp (t, "async") == 0;

  if (len == 0)
    return CP_XLA_OP_NONE;
  if (has_any (t, xla_collectives))
    return CP_XLA_OP_COLLECTIVE;
  if (g_str_has_prefix (t, "send") || g_str_has_prefix (t, "recv"))
    return CP_XLA_OP_SEND_RECV;
  if (async_end || g_str_has_prefix (t, "async-"))
    return CP_XLA_OP_ASYNC;
  if (g_str_has_prefix (t, "infeed"))
    return CP_XLA_OP_INFEED;
  if (g_str_has_prefix (t, "outfeed"))
    return CP_XLA_OP_OUTFEED;
  if (strstr (t, "convolution") || g_str_has_prefix (t, "cudnn-conv") || strcmp (t, "conv") == 0 ||
      strstr (t, "conv-fusion") || strstr (t, "conv-general"))
    return CP_XLA_OP_CONVOLUTION;
  if (strcmp (t, "dot") == 0 || g_str_has_prefix (t, "dot-") || strstr (t, "-dot") ||
      strstr (t, "gemm") || strstr (t, "matmul") || strstr (t, "cublas") || strstr (t, "hipblas"))
    return CP_XLA_OP_MATMUL;
  if (strstr (t, "fusion") != NULL)
    {
      if (g_str_has_prefix (t, "input"))
        return CP_XLA_OP_INPUT_FUSION;
      if (g_str_has_prefix (t, "output"))
        return CP_XLA_OP_OUTPUT_FUSION;
      if (g_str_has_prefix (t, "custom") || g_str_has_prefix (t, "triton"))
        return CP_XLA_OP_CUSTOM_FUSION;
      return CP_XLA_OP_LOOP_FUSION;
    }
  if (g_str_has_prefix (t, "custom-call") || g_str_has_prefix (t, "triton"))
    return CP_XLA_OP_CUSTOM_FUSION;
  if (strcmp (t, "copy") == 0)
    return CP_XLA_OP_COPY;
  if (word_in (t, xla_data_formatting))
    return CP_XLA_OP_DATA_FORMATTING;
  if (word_in (t, xla_control_flow))
    return CP_XLA_OP_CONTROL_FLOW;
  return CP_XLA_OP_NONE;
}

CpXlaOpClass
cp_classify_xla_op (const char *name,
                    const char *hlo_category)
{
  char token[96];
  gboolean hlo_text = FALSE;
  CpXlaOpClass c;

  if (hlo_category != NULL && *hlo_category != '\0')
    {
      xla_token (hlo_category, token, sizeof token, &hlo_text);
      /* XProf's categories have spaces ("loop fusion", "data formatting"). */
      {
        g_autofree char *lower = g_ascii_strdown (hlo_category, -1);

        for (char *q = lower; *q != '\0'; q++)
          if (*q == '_')
            *q = '-';
        if (strcmp (lower, "non-fusion elementwise") == 0)
          return CP_XLA_OP_OTHER;
        if (g_str_has_prefix (lower, "convolution"))
          return CP_XLA_OP_CONVOLUTION;
        if (strstr (lower, "fusion") && !has_any (lower, xla_collectives))
          {
            c = xla_class_of_token (lower);
            if (c != CP_XLA_OP_NONE)
              return c;
          }
        c = xla_class_of_token (lower);
        if (c != CP_XLA_OP_NONE)
          return c;
      }
    }
  if (name == NULL || *name == '\0')
    return hlo_category != NULL && *hlo_category != '\0' ? CP_XLA_OP_OTHER : CP_XLA_OP_NONE;
  xla_token (name, token, sizeof token, &hlo_text);
  c = xla_class_of_token (token);
  if (c == CP_XLA_OP_NONE && (hlo_text || (hlo_category != NULL && *hlo_category != '\0')))
    return CP_XLA_OP_OTHER;
  return c;
}

const char *
cp_xla_op_class_to_string (CpXlaOpClass op_class)
{
  static const char * const ids[CP_N_XLA_OP_CLASSES] = {
    [CP_XLA_OP_NONE] = "none",
    [CP_XLA_OP_CONVOLUTION] = "convolution",
    [CP_XLA_OP_MATMUL] = "matmul",
    [CP_XLA_OP_LOOP_FUSION] = "loop_fusion",
    [CP_XLA_OP_INPUT_FUSION] = "input_fusion",
    [CP_XLA_OP_OUTPUT_FUSION] = "output_fusion",
    [CP_XLA_OP_CUSTOM_FUSION] = "custom_fusion",
    [CP_XLA_OP_COLLECTIVE] = "collective",
    [CP_XLA_OP_SEND_RECV] = "send_recv",
    [CP_XLA_OP_ASYNC] = "async",
    [CP_XLA_OP_COPY] = "copy",
    [CP_XLA_OP_INFEED] = "infeed",
    [CP_XLA_OP_OUTFEED] = "outfeed",
    [CP_XLA_OP_DATA_FORMATTING] = "data_formatting",
    [CP_XLA_OP_CONTROL_FLOW] = "control_flow",
    [CP_XLA_OP_OTHER] = "other",
  };

  g_return_val_if_fail (op_class < CP_N_XLA_OP_CLASSES, NULL);
  return ids[op_class];
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
  /* AMD Tensile / hipBLASLt GEMMs, "Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_…":
   * the fourth field gives the data types (B bf16, H half, F8 / B8 8-bit
   * floats, then S / D for 32 / 64 bit), and an MI tile means the matrix
   * cores (MFMA), AMD's tensor cores. */
  if (g_str_has_prefix (name, "Cijk_"))
    {
      const char *p = name;
      guint field = 0;

      while (field < 3 && (p = strchr (p, '_')) != NULL)
        {
          p++;
          field++;
        }
      if (p != NULL && (((p[0] == 'B' || p[0] == 'H') && g_ascii_isupper (p[1])) ||
                        ((p[0] == 'F' || p[0] == 'B') && p[1] == '8')))
        flags |= CP_NAME_HALF;
      if (strstr (name, "_MI") != NULL && g_ascii_isdigit (strstr (name, "_MI")[3]))
        flags |= CP_NAME_TENSOR_CORE | CP_NAME_GEMM_LIKE;
      else
        flags |= CP_NAME_GEMM_LIKE;
    }
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
  if (moves_data (name, lower, flags))
    flags |= CP_NAME_DATA_MOVEMENT;

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

/* XPlane stats records */

static gboolean
read_varint (const guint8 **p,
             const guint8  *end,
             guint64       *out)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64 && *p < end; shift += 7)
    {
      guint8 c = *(*p)++;

      v |= (guint64) (c & 0x7f) << shift;
      if (!(c & 0x80))
        {
          *out = v;
          return TRUE;
        }
    }
  return FALSE;
}

typedef struct
{
  CpStr    str;
  gboolean has_int;
  gint64   i;
} Found;

static gboolean
find_in (CpTrace *trace,
         guint32  args_id,
         CpStr    key,
         guint    depth,
         Found   *found)
{
  CpArgsFormat format = CP_ARGS_NONE;
  const guint8 *p = NULL, *end;
  gsize len = 0;

  if (depth > 4 || !cp_trace_get_args_by_id (trace, args_id, &format, &p, &len) ||
      format != CP_ARGS_XSTATS)
    return FALSE;
  end = p + len;
  while (p < end)
    {
      guint64 k, v;
      guint8 type;

      if (!read_varint (&p, end, &k) || p >= end)
        return FALSE;
      type = *p++;
      switch (type)
        {
        case 0: /* INT64, zigzag */
        case 1: /* UINT64 */
          if (!read_varint (&p, end, &v))
            return FALSE;
          if (k == key && (type == 0 || v <= G_MAXINT64))
            {
              found->has_int = TRUE;
              found->i = type == 0 ? (gint64) (v >> 1) ^ -(gint64) (v & 1) : (gint64) v;
            }
          break;
        case 2: /* DOUBLE */
          if (end - p < 8)
            return FALSE;
          p += 8;
          break;
        case 3: /* STRING */
          if (!read_varint (&p, end, &v))
            return FALSE;
          if (k == key && v <= G_MAXUINT32)
            found->str = (CpStr) v;
          break;
        case 4: /* BYTES: the length only */
          if (!read_varint (&p, end, &v))
            return FALSE;
          break;
        case 5: /* INCLUDE */
          if (!read_varint (&p, end, &v) || v > G_MAXUINT32)
            return FALSE;
          find_in (trace, (guint32) v, key, depth + 1, found);
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

CpStr
cp_xstats_find_string (CpTrace *trace,
                       guint32  args_id,
                       CpStr    key)
{
  Found found = { CP_STR_EMPTY, FALSE, 0 };

  g_return_val_if_fail (CP_IS_TRACE (trace), CP_STR_EMPTY);

  if (key == CP_STR_EMPTY || key == G_MAXUINT32 || args_id == 0)
    return CP_STR_EMPTY;
  find_in (trace, args_id, key, 0, &found);
  return found.str;
}

gboolean
cp_classify_inductor_kernel (const char  *name,
                             const char **kind,
                             char       **fused)
{
  static const struct { const char *prefix; const char *kind; } kinds[] = {
    { "triton_poi_fused_", N_("pointwise") },
    { "triton_red_fused_", N_("reduction") },
    { "triton_per_fused_", N_("persistent reduction") },
    { "triton_tem_fused_", N_("template") },
    { "triton_for_fused_", N_("foreach") },
    { "cpp_fused_", N_("C++") },
  };
  const char *rest = NULL, *end;

  g_return_val_if_fail (kind != NULL && fused != NULL, FALSE);

  *kind = NULL;
  *fused = NULL;
  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (kinds) && rest == NULL; i++)
    if (g_str_has_prefix (name, kinds[i].prefix))
      {
        rest = name + strlen (kinds[i].prefix);
        *kind = kinds[i].kind;
      }
  if (rest == NULL)
    return FALSE;
  /* The ops, then "_N", the kernel's number in its graph. */
  end = rest + strlen (rest);
  while (end > rest && g_ascii_isdigit (end[-1]))
    end--;
  if (end == rest + strlen (rest) || end - rest < 2 || end[-1] != '_')
    {
      *kind = NULL;
      return FALSE;
    }
  *fused = g_strndup (rest, end - 1 - rest);
  return TRUE;
}

gboolean
cp_xstats_find_int (CpTrace *trace,
                    guint32  args_id,
                    CpStr    key,
                    gint64  *value)
{
  Found found = { CP_STR_EMPTY, FALSE, 0 };

  g_return_val_if_fail (CP_IS_TRACE (trace), FALSE);

  if (key == CP_STR_EMPTY || key == G_MAXUINT32 || args_id == 0)
    return FALSE;
  find_in (trace, args_id, key, 0, &found);
  if (found.has_int)
    *value = found.i;
  return found.has_int;
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
