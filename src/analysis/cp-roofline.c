/* cp-roofline.c: FLOPs and bytes per kernel and host op, and where each
 * runs against its device's roofline
 *
 * Sources, strongest first: XPlane's `flops` and `bytes_accessed` stats on
 * the kernel or XLA op itself; Kineto's `flops` argument on the launching
 * op (with_flops=True); the launching op's `Input Dims` with the formulas
 * below (record_shapes=True), marked as estimates. A kernel without figures
 * of its own takes those of the nearest op around its launch that has
 * them (cp-roofline-pass.c): a kernel that computes by its share of the
 * time of the op's computing kernels; one that only moves or lays out
 * data (CP_NAME_DATA_MOVEMENT: transposes, copies, fills) no FLOPs, and
 * the op's bytes by its share of all the op's kernel time. Bytes come from
 * the XPlane stat, or from the shapes (inputs read, output written once).
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cp-roofline.h"

const char *
cp_precision_to_string (CpPrecision precision)
{
  static const char * const names[CP_N_PRECISIONS] = { "fp32", "tf32", "bf16/fp16", "fp8", "int8" };

  return precision < CP_N_PRECISIONS ? names[precision] : "fp32";
}

const char *
cp_flops_source_to_string (CpFlopsSource source)
{
  switch (source)
    {
    case CP_FLOPS_MEASURED: return "stats";
    case CP_FLOPS_COUNTED: return "flops-argument";
    case CP_FLOPS_ESTIMATED: return "estimate";
    case CP_FLOPS_NONE:
    default: return "none";
    }
}

const char *
cp_bound_to_string (CpBound bound)
{
  switch (bound)
    {
    case CP_BOUND_MEMORY: return "memory";
    case CP_BOUND_COMPUTE: return "compute";
    case CP_BOUND_UNKNOWN:
    default: return "unknown";
    }
}

const char *
cp_peak_source_to_string (CpPeakSource source)
{
  switch (source)
    {
    case CP_PEAK_CAPTURE: return "capture";
    case CP_PEAK_TABLE: return "table";
    case CP_PEAK_PROPERTIES: return "properties";
    case CP_PEAK_UNKNOWN:
    default: return "unknown";
    }
}

double
cp_roofline_ceiling (double peak_tflops,
                     double bandwidth_gbs,
                     double intensity)
{
  if (!(peak_tflops > 0))
    return 0;
  if (!(bandwidth_gbs > 0) || !isfinite (intensity) || intensity < 0)
    return peak_tflops;
  return MIN (peak_tflops, intensity * bandwidth_gbs / 1000.0);
}

void
cp_roofline_stats_finish (CpRooflineStats *st)
{
  double ceiling;

  st->achieved_tflops = st->timed > 0 ? st->flops / ((double) st->timed * 1e-9) / 1e12 : NAN;
  st->achieved_gbs = st->bytes_time > 0 && st->bytes > 0 ? st->bytes / ((double) st->bytes_time * 1e-9) / 1e9 : NAN;
  st->intensity = st->bytes > 0 ? st->flops_with_bytes / st->bytes : NAN;
  st->bound = CP_BOUND_UNKNOWN;
  st->roofline_percent = NAN;
  if (st->peak_tflops > 0 && st->peak_bandwidth > 0 && isfinite (st->intensity))
    st->bound = st->intensity < st->peak_tflops * 1000.0 / st->peak_bandwidth ? CP_BOUND_MEMORY : CP_BOUND_COMPUTE;
  ceiling = cp_roofline_ceiling (st->peak_tflops, st->peak_bandwidth, st->intensity);
  /* Against the ceiling at its intensity: the slope for memory-bound
   * work, the flat roof for compute-bound work. Work without FLOPs
   * (copies, broadcasts) is measured by its bandwidth alone. */
  if (st->flops > 0 && ceiling > 0 && isfinite (st->achieved_tflops))
    st->roofline_percent = 100.0 * st->achieved_tflops / ceiling;
  else if (st->timed > 0 && st->flops == 0 && isfinite (st->achieved_gbs) && st->peak_bandwidth > 0 &&
           st->peak_tflops > 0)
    st->roofline_percent = 100.0 * st->achieved_gbs / st->peak_bandwidth;
}

/* Shapes */

static gint64
numel (const CpOpShapes *s,
       guint             i)
{
  gint64 n = 1;

  if (i >= s->n_inputs || s->rank[i] < 0)
    return 0;
  for (gint d = 0; d < s->rank[i]; d++)
    n *= s->dims[i][d];
  return n;
}

static gboolean
is_tensor (const CpOpShapes *s,
           guint             i)
{
  return i < s->n_inputs && s->rank[i] >= 0 && s->elem_size[i] > 0;
}

/* Bytes of the tensors read (inputs given by mask) and of an output of
 * out_numel elements of the first input's type; NAN when a type is unknown. */
static double
bytes_of (const CpOpShapes *s,
          guint32           mask,
          double            out_numel,
          guint             out_like)
{
  double b = 0;

  for (guint i = 0; i < s->n_inputs && i < 32; i++)
    if (mask & (1u << i))
      {
        if (s->rank[i] < 0 || s->elem_size[i] == 0)
          return NAN;
        b += (double) numel (s, i) * s->elem_size[i];
      }
  if (out_like >= s->n_inputs || s->elem_size[out_like] == 0)
    return NAN;
  return b + out_numel * s->elem_size[out_like];
}

/* A list of integers as Kineto's "Concrete Inputs" writes it: "[1, 1]" or
 * "1" (one value for every spatial dimension). */
static gboolean
parse_int_list (const char *text,
                guint       n,
                gint64     *out)
{
  const char *p = text;
  guint got = 0;

  if (text == NULL)
    return FALSE;
  while (*p == ' ' || *p == '[')
    p++;
  while (*p != '\0' && *p != ']' && got < 8)
    {
      char *end;
      gint64 v = g_ascii_strtoll (p, &end, 10);

      if (end == p)
        return FALSE;
      out[got++] = v;
      p = end;
      while (*p == ' ' || *p == ',')
        p++;
    }
  if (got == 1)
    for (guint i = 1; i < n; i++)
      out[i] = out[0];
  else if (got != n)
    return FALSE;
  return TRUE;
}

static gboolean
concrete_true (const CpOpShapes *s,
               guint             i)
{
  return i < s->n_inputs && s->concrete[i] != NULL && g_ascii_strcasecmp (s->concrete[i], "True") == 0;
}

static gboolean
gemm (const char       *op,
      const CpOpShapes *s,
      double           *flops,
      double           *bytes,
      guint            *first)
{
  guint a, b;
  gint64 batch = 1, m, k, n;
  guint32 mask;
  gboolean linear = FALSE;

  if (g_str_equal (op, "mm") || g_str_equal (op, "bmm") || g_str_equal (op, "matmul"))
    a = 0, b = 1;
  else if (g_str_equal (op, "addmm") || g_str_equal (op, "baddbmm") || g_str_equal (op, "addbmm"))
    a = 1, b = 2;
  else if (g_str_equal (op, "linear"))
    a = 0, b = 1, linear = TRUE;
  else
    return FALSE;
  if (!is_tensor (s, a) || !is_tensor (s, b) || s->rank[a] < 1 || s->rank[b] < 1)
    return FALSE;

  if (linear)
    {
      /* input [..., K], weight [N, K] */
      if (s->rank[b] != 2 || s->dims[b][1] != s->dims[a][s->rank[a] - 1])
        return FALSE;
      k = s->dims[b][1];
      n = s->dims[b][0];
      m = numel (s, a) / MAX (k, 1);
    }
  else
    {
      gint ra = s->rank[a], rb = s->rank[b];

      m = ra >= 2 ? s->dims[a][ra - 2] : 1;
      k = s->dims[a][ra - 1];
      n = rb >= 2 ? s->dims[b][rb - 1] : 1;
      if ((rb >= 2 ? s->dims[b][rb - 2] : s->dims[b][0]) != k)
        return FALSE;
      /* Batch dimensions, broadcast. */
      for (gint d = 0; d < MAX (ra, rb) - 2; d++)
        {
          gint da = ra - 3 - d, db = rb - 3 - d;
          gint64 x = da >= 0 ? s->dims[a][da] : 1;
          gint64 y = db >= 0 ? s->dims[b][db] : 1;

          if (x != y && x != 1 && y != 1)
            return FALSE;
          batch *= MAX (x, y);
        }
      if (g_str_equal (op, "addbmm"))
        batch = ra == 3 ? s->dims[a][0] : batch;
    }
  *flops = 2.0 * (double) batch * (double) m * (double) n * (double) k;
  mask = (1u << a) | (1u << b);
  if (a == 1 && is_tensor (s, 0))
    mask |= 1u;
  if (linear && is_tensor (s, 2))
    mask |= 1u << 2;
  *bytes = bytes_of (s, mask, g_str_equal (op, "addbmm") ? (double) m * n : (double) batch * m * n, a);
  *first = a;
  return TRUE;
}

static gboolean
conv (const char       *op,
      const CpOpShapes *s,
      double           *flops,
      double           *bytes)
{
  gint i_stride, i_pad, i_dil, i_groups, i_transposed = -1;
  gint nsp;
  gint64 stride[8], pad[8], dil[8], groups, out = 1, ksize = 1;
  guint32 mask = 3;

  if (g_str_equal (op, "conv1d") || g_str_equal (op, "conv2d") || g_str_equal (op, "conv3d"))
    i_stride = 3, i_pad = 4, i_dil = 5, i_groups = 6;
  else if (g_str_equal (op, "convolution") || g_str_equal (op, "_convolution"))
    i_stride = 3, i_pad = 4, i_dil = 5, i_transposed = 6, i_groups = 8;
  else if (g_str_equal (op, "cudnn_convolution"))
    i_pad = 2, i_stride = 3, i_dil = 4, i_groups = 5;
  else if (g_str_equal (op, "miopen_convolution"))
    i_pad = 3, i_stride = 4, i_dil = 5, i_groups = 6;
  else
    return FALSE;

  if (!is_tensor (s, 0) || !is_tensor (s, 1) || s->rank[0] < 3 || s->rank[0] != s->rank[1] ||
      s->rank[0] > 5)
    return FALSE;
  nsp = s->rank[0] - 2;
  if (i_transposed >= 0 && !(i_transposed < (gint) s->n_inputs && s->concrete[i_transposed] != NULL &&
                             g_ascii_strcasecmp (s->concrete[i_transposed], "False") == 0))
    return FALSE;   /* transposed, or not said */
  if ((guint) MAX (MAX (i_stride, i_pad), MAX (i_dil, i_groups)) >= s->n_inputs)
    return FALSE;
  if (!parse_int_list (s->concrete[i_stride], nsp, stride) ||
      !parse_int_list (s->concrete[i_pad], nsp, pad) ||
      !parse_int_list (s->concrete[i_dil], nsp, dil) ||
      !parse_int_list (s->concrete[i_groups], 1, &groups) || groups < 1)
    return FALSE;
  if (s->dims[1][1] * groups != s->dims[0][1])
    return FALSE;
  for (gint d = 0; d < nsp; d++)
    {
      gint64 in = s->dims[0][2 + d], k = s->dims[1][2 + d];
      gint64 o;

      if (stride[d] < 1 || dil[d] < 1 || pad[d] < 0)
        return FALSE;
      o = (in + 2 * pad[d] - dil[d] * (k - 1) - 1) / stride[d] + 1;
      if (o < 1)
        return FALSE;
      out *= o;
      ksize *= k;
    }
  /* 2 · N · C_out · out positions · (C_in / groups) · kernel size */
  *flops = 2.0 * (double) s->dims[0][0] * (double) s->dims[1][0] * (double) out *
           (double) s->dims[1][1] * (double) ksize;
  if (!g_str_equal (op, "cudnn_convolution") && is_tensor (s, 2) && s->rank[2] == 1)
    mask |= 1u << 2;
  *bytes = bytes_of (s, mask, (double) s->dims[0][0] * s->dims[1][0] * out, 0);
  return TRUE;
}

static gboolean
attention (const char       *op,
           const CpOpShapes *s,
           double           *flops,
           double           *bytes)
{
  gboolean seq_first;         /* [B, L, H, E] rather than [B, H, L, E] */
  gint i_causal;
  gint64 b, h, l, sl, e, ev;

  if (g_str_equal (op, "scaled_dot_product_attention"))
    seq_first = FALSE, i_causal = 5;
  else if (g_str_equal (op, "_scaled_dot_product_flash_attention") ||
           g_str_equal (op, "_scaled_dot_product_cudnn_attention"))
    seq_first = FALSE, i_causal = g_str_equal (op, "_scaled_dot_product_flash_attention") ? 4 : 6;
  else if (g_str_equal (op, "_scaled_dot_product_efficient_attention"))
    seq_first = FALSE, i_causal = 6;
  else if (g_str_equal (op, "_flash_attention_forward"))
    seq_first = TRUE, i_causal = 8;
  else if (g_str_equal (op, "_efficient_attention_forward"))
    seq_first = TRUE, i_causal = -1;
  else
    return FALSE;
  for (guint i = 0; i < 3; i++)
    if (!is_tensor (s, i) || s->rank[i] != 4)
      return FALSE;
  b = s->dims[0][0];
  h = s->dims[0][seq_first ? 2 : 1];
  l = s->dims[0][seq_first ? 1 : 2];
  e = s->dims[0][3];
  sl = s->dims[1][seq_first ? 1 : 2];
  ev = s->dims[2][3];
  if (s->dims[1][3] != e || s->dims[2][seq_first ? 1 : 2] != sl)
    return FALSE;
  /* Q·Kᵀ: 2·B·H·L·S·E; P·V: 2·B·H·L·S·Ev; a causal mask skips half. */
  *flops = 2.0 * (double) b * h * l * sl * (double) (e + ev);
  if (i_causal >= 0 && concrete_true (s, (guint) i_causal))
    *flops /= 2;
  *bytes = bytes_of (s, 7, (double) b * h * l * ev, 0);
  return TRUE;
}

static const char * const elementwise_ops[] = {
  "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "neg", "abs",
  "relu", "relu_", "gelu", "gelu_", "silu", "silu_", "sigmoid", "sigmoid_", "tanh", "tanh_",
  "exp", "exp_", "log", "sqrt", "rsqrt", "pow", "clamp", "clamp_", "maximum", "minimum",
  "threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
  "hardtanh", "hardtanh_", "leaky_relu", "where", "addcmul_", "addcdiv_", "lerp_",
  NULL
};

static gboolean
elementwise (const char       *op,
             const CpOpShapes *s,
             double           *flops,
             double           *bytes,
             guint            *first)
{
  gint64 out[8] = { 0 };
  gint rank = 0;
  guint32 mask = 0;
  gint t0 = -1;

  if (!g_strv_contains (elementwise_ops, op))
    return FALSE;
  /* The output's shape: the inputs' shapes broadcast. */
  for (guint i = 0; i < s->n_inputs && i < 16; i++)
    {
      if (!is_tensor (s, i))
        continue;
      if (t0 < 0)
        t0 = (gint) i;
      mask |= 1u << i;
      for (gint d = 0; d < s->rank[i]; d++)
        {
          gint od = 8 - s->rank[i] + d;
          gint64 v = s->dims[i][d];

          if (out[od] == 0 || out[od] == 1)
            out[od] = v;
          else if (v != 1 && v != out[od])
            return FALSE;
        }
      rank = MAX (rank, s->rank[i]);
    }
  if (t0 < 0)
    return FALSE;
  {
    double n = 1;

    for (gint d = 8 - rank; d < 8; d++)
      n *= (double) out[d];
    *flops = n;   /* one operation per output element */
    *bytes = bytes_of (s, mask, n, (guint) t0);
  }
  *first = (guint) t0;
  return TRUE;
}

gboolean
cp_roofline_op_flops (const char       *op_name,
                      const CpOpShapes *shapes,
                      double           *flops,
                      double           *bytes,
                      CpPrecision      *precision)
{
  const char *op = op_name;
  guint first = 0;
  gboolean ok;

  if (g_str_has_prefix (op, "aten::"))
    op += strlen ("aten::");
  else if (strstr (op, "::") != NULL)
    return FALSE;
  *bytes = NAN;
  ok = gemm (op, shapes, flops, bytes, &first) ||
       conv (op, shapes, flops, bytes) ||
       attention (op, shapes, flops, bytes) ||
       elementwise (op, shapes, flops, bytes, &first);
  if (!ok)
    return FALSE;
  /* The precision of the formula's first operand, or of the first
   * floating-point tensor when that one is not (a `where` mask). */
  *precision = first < shapes->n_inputs ? shapes->precision[first] : CP_PRECISION_FP32;
  if (first < shapes->n_inputs && !shapes->is_float[first])
    for (guint i = 0; i < shapes->n_inputs; i++)
      if (is_tensor (shapes, i) && shapes->is_float[i])
        {
          *precision = shapes->precision[i];
          break;
        }
  return TRUE;
}
