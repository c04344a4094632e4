/* cp-devices-table.c: peak compute and memory bandwidth of known devices
 *
 * Each row gives the dense (not 2:4 sparse) peaks the vendor's datasheet
 * states, in TFLOP/s (TOP/s for int8), per precision: fp32 (non-tensor),
 * tf32, bf16/fp16, fp8, int8; 0 where the device has no such unit or the
 * vendor states none. Bandwidth is the memory bandwidth in GB/s (10^9 B/s).
 * A device that is not here is "peak unknown": nothing is guessed.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-roofline.h"

enum
{
  A100_40,
  A100_80_SXM,
  A100_80_PCIE,
  H100_SXM,
  H100_PCIE,
  H200,
  B200,
  L4,
  RTX_4090,
  RTX_3090,
  MI250,
  MI250X,
  MI300X,
  TPU_V4,
  TPU_V5E,
  TPU_V5P,
  TPU_V6E,
  N_ROWS
};

/*                                          fp32    tf32    16-bit   fp8     int8    GB/s */
static const CpDevicePeak rows[N_ROWS] = {
  /* NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5, TF32 156,
   * BF16/FP16 312, INT8 624 TOPS (dense); HBM2 1,555 GB/s (40 GB). */
  [A100_40] = { "NVIDIA A100 40GB", { 19.5, 156, 312, 0, 624 }, 1555 },
  /* Same datasheet, A100 80GB SXM: HBM2e 2,039 GB/s. */
  [A100_80_SXM] = { "NVIDIA A100 80GB SXM", { 19.5, 156, 312, 0, 624 }, 2039 },
  /* Same datasheet, A100 80GB PCIe: HBM2e 1,935 GB/s. */
  [A100_80_PCIE] = { "NVIDIA A100 80GB PCIe", { 19.5, 156, 312, 0, 624 }, 1935 },
  /* NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: FP32 67, TF32 989 /
   * BF16 1,979 / FP8 3,958 / INT8 3,958 "with sparsity" (dense: half);
   * HBM3 3.35 TB/s. */
  [H100_SXM] = { "NVIDIA H100 SXM", { 67, 494.5, 989.5, 1979, 1979 }, 3350 },
  /* Same datasheet, H100 PCIe: FP32 51, TF32 756 / BF16 1,513 / FP8 3,026 /
   * INT8 3,026 with sparsity (dense: half); HBM2e 2 TB/s. */
  [H100_PCIE] = { "NVIDIA H100 PCIe", { 51, 378, 756, 1513, 1513 }, 2000 },
  /* NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: FP32 67, TF32 989 /
   * BF16 1,979 / FP8 3,958 / INT8 3,958 with sparsity; HBM3e 4.8 TB/s. */
  [H200] = { "NVIDIA H200", { 67, 494.5, 989.5, 1979, 1979 }, 4800 },
  /* NVIDIA HGX B200 datasheet (8 GPUs), per GPU: FP32 600/8 = 75 TFLOPS,
   * TF32 18 / BF16 36 / FP8 72 PFLOPS and INT8 72 POPS with sparsity
   * (dense: half), HBM3e 64 TB/s / 8 = 8 TB/s. */
  [B200] = { "NVIDIA B200", { 75, 1125, 2250, 4500, 4500 }, 8000 },
  /* NVIDIA L4 Tensor Core GPU datasheet: FP32 30.3, TF32 120 / BF16 242 /
   * FP8 485 / INT8 485 with sparsity (dense: half); GDDR6 300 GB/s. */
  [L4] = { "NVIDIA L4", { 30.3, 60, 121, 242.5, 242.5 }, 300 },
  /* NVIDIA Ada Lovelace GPU architecture whitepaper (v2.02), GeForce RTX
   * 4090: FP32 82.6, TF32 82.6, FP16/BF16 with FP32 accumulate 165.2,
   * FP8 with FP32 accumulate 330.3, INT8 660.6 TOPS (dense); 1,008 GB/s. */
  [RTX_4090] = { "NVIDIA GeForce RTX 4090", { 82.6, 82.6, 165.2, 330.3, 660.6 }, 1008 },
  /* NVIDIA Ampere GA102 GPU architecture whitepaper (v2.1), GeForce RTX
   * 3090: FP32 35.6, TF32 35.6, FP16/BF16 with FP32 accumulate 71, INT8
   * 284 TOPS (dense); GDDR6X 936 GB/s. */
  [RTX_3090] = { "NVIDIA GeForce RTX 3090", { 35.6, 35.6, 71, 0, 284 }, 936 },
  /* AMD Instinct MI250 data sheet: FP32 matrix 90.5, FP16/BF16 362.1,
   * INT8 362.1 TOPS; no TF32 or FP8; HBM2e 3.2 TB/s (3,276.8 GB/s). */
  [MI250] = { "AMD Instinct MI250", { 90.5, 0, 362.1, 0, 362.1 }, 3276.8 },
  /* AMD Instinct MI250X data sheet: FP32 matrix 95.7, FP16/BF16 383,
   * INT8 383 TOPS; HBM2e 3.2 TB/s (3,276.8 GB/s). */
  [MI250X] = { "AMD Instinct MI250X", { 95.7, 0, 383, 0, 383 }, 3276.8 },
  /* AMD Instinct MI300X data sheet: FP32 matrix 163.4, TF32 653.7,
   * FP16/BF16 1,307.4, FP8 2,614.9, INT8 2,614.9 TOPS (dense); HBM3
   * 5.3 TB/s. */
  [MI300X] = { "AMD Instinct MI300X", { 163.4, 653.7, 1307.4, 2614.9, 2614.9 }, 5300 },
  /* Google Cloud TPU v4 documentation: 275 TFLOPS bf16 and int8 per chip;
   * HBM2 1,200 GB/s. */
  [TPU_V4] = { "TPU v4", { 0, 0, 275, 0, 275 }, 1200 },
  /* Google Cloud TPU v5e documentation: 197 TFLOPS bf16, 394 TOPS int8 per
   * chip; HBM2 819 GB/s. */
  [TPU_V5E] = { "TPU v5e", { 0, 0, 197, 0, 394 }, 819 },
  /* Google Cloud TPU v5p documentation: 459 TFLOPS bf16, 918 TOPS int8 per
   * chip; HBM2e 2,765 GB/s. */
  [TPU_V5P] = { "TPU v5p", { 0, 0, 459, 0, 918 }, 2765 },
  /* Google Cloud TPU v6e (Trillium) documentation: 918 TFLOPS bf16,
   * 1,836 TOPS int8 per chip; HBM 1,640 GB/s. */
  [TPU_V6E] = { "TPU v6e", { 0, 0, 918, 0, 1836 }, 1640 },
};

const CpDevicePeak *
cp_device_peak_table (guint *n_rows)
{
  *n_rows = N_ROWS;
  return rows;
}

static gboolean
has (const char *haystack,
     const char *needle)
{
  return strstr (haystack, needle) != NULL;
}

const CpDevicePeak *
cp_device_peak_lookup (const char *name,
                       gint64      total_memory)
{
  g_autofree char *n = NULL;

  if (name == NULL || *name == '\0')
    return NULL;
  n = g_ascii_strdown (name, -1);

  if (has (n, "tpu"))
    {
      /* XPlane names the chips "TPU v4", "TPU v5 lite", "TPU v5p" / "TPU v5",
       * "TPU v6 lite" / "TPU v6e". */
      if (has (n, "v6"))
        return has (n, "lite") || has (n, "v6e") ? &rows[TPU_V6E] : NULL;
      if (has (n, "v5"))
        {
          if (has (n, "lite") || has (n, "v5e"))
            return &rows[TPU_V5E];
          return &rows[TPU_V5P];
        }
      if (has (n, "v4") && !has (n, "lite") && !has (n, "v4i"))
        return &rows[TPU_V4];
      return NULL;
    }
  if (has (n, "mi300x"))
    return &rows[MI300X];
  if (has (n, "mi250x"))
    return &rows[MI250X];
  if (has (n, "mi250"))
    return &rows[MI250];
  if (has (n, "rtx 4090") && !has (n, "laptop") && !has (n, "mobile") && !has (n, " d"))
    return &rows[RTX_4090];
  if (has (n, "rtx 3090") && !has (n, "ti") && !has (n, "laptop"))
    return &rows[RTX_3090];
  if (has (n, "b200"))
    return &rows[B200];
  if (has (n, "h200"))
    return has (n, "nvl") ? NULL : &rows[H200];
  if (has (n, "h100"))
    {
      if (has (n, "pcie"))
        return &rows[H100_PCIE];
      /* "NVIDIA H100 80GB HBM3" is the SXM part; the NVL and a bare
       * "NVIDIA H100" say too little. */
      if (has (n, "hbm3") || has (n, "sxm"))
        return &rows[H100_SXM];
      return NULL;
    }
  if (has (n, "a100"))
    {
      gboolean gb80 = has (n, "80gb") ||
                      (!has (n, "40gb") && total_memory > (gint64) 60 << 30);
      gboolean gb40 = has (n, "40gb") ||
                      (!gb80 && total_memory > 0 && total_memory <= (gint64) 60 << 30);

      if (gb80)
        return has (n, "pcie") ? &rows[A100_80_PCIE] : &rows[A100_80_SXM];
      if (gb40)
        return &rows[A100_40];
      return NULL;
    }
  if (g_str_has_suffix (n, " l4") || g_str_equal (n, "l4"))
    return &rows[L4];
  return NULL;
}

/* Names of devices without TF32 that the table does not hold: NVIDIA's
 * before Ampere (Kepler to Turing) and AMD's before CDNA 3. */
static const char * const no_tf32_names[] = {
  "v100", "tesla t4", "tesla p", "tesla k", "tesla m", "titan v", "titan rtx", "titan x",
  "quadro rtx", "quadro p", "quadro t", "geforce gtx", "rtx 20", "p100", "p40", "k80",
  "mi50", "mi60", "mi100", "mi210", "mi250", "mi8", "mi25", "radeon vii",
};
/* And those with it: Ampere, Ada, Hopper, Blackwell; CDNA 3. */
static const char * const tf32_names[] = {
  "a100", "a10", "a30", "a40", "rtx a", "rtx 30", "rtx 40", "rtx 50", "l4", "l40",
  "h100", "h200", "h800", "a800", "b100", "b200", "gb200", "gh200", "mi300", "mi325",
};

static gboolean
is_amd (const char *lower_name,
        const char *vendor)
{
  return (vendor != NULL && g_ascii_strcasecmp (vendor, "AMD") == 0) ||
         has (lower_name, "amd") || has (lower_name, "instinct") || has (lower_name, "radeon");
}

CpTf32Support
cp_device_tf32_support (const char *name,
                        const char *vendor,
                        gint        compute_major)
{
  g_autofree char *n = g_ascii_strdown (name != NULL ? name : "", -1);
  gboolean amd = is_amd (n, vendor);

  if (has (n, "tpu"))
    return CP_TF32_NO;
  /* A compute capability is NVIDIA's (ROCm states its gfx version). */
  if (!amd && compute_major > 0)
    return compute_major >= 8 ? CP_TF32_YES : CP_TF32_NO;
  for (guint i = 0; i < G_N_ELEMENTS (no_tf32_names); i++)
    if (has (n, no_tf32_names[i]))
      return CP_TF32_NO;
  for (guint i = 0; i < G_N_ELEMENTS (tf32_names); i++)
    if (has (n, tf32_names[i]))
      return CP_TF32_YES;
  return CP_TF32_UNKNOWN;
}

/* NVIDIA GPUs the table does not name: the dense FLOPs one SM does per
 * clock, per precision (fp32 on the CUDA cores; tf32, bf16/fp16, fp8 and
 * int8 on the tensor cores, FP32 accumulation), from the vendor's
 * architecture whitepapers, times the SMs and the clock the capture states.
 * Each row checks against a datasheet: SMs × clock × rate.
 *
 * - 7.0, Volta (V100 whitepaper): 64 FP32 cores and 8 tensor cores of 64
 *   FP16 FMA per clock an SM; V100 SXM2, 80 SMs at 1530 MHz: 15.7 / 125.
 * - 7.5, Turing (Turing whitepaper): 64 FP32 cores, 8 tensor cores of 64
 *   FP16 / 128 INT8 FMA; T4, 40 SMs at 1590 MHz: 8.1 / 65 / 130.
 * - 8.0, GA100 (A100 whitepaper): 64 FP32 cores, 4 tensor cores of 256
 *   FP16 FMA; A100, 108 SMs at 1410 MHz: 19.5 / 156 / 312 / 624.
 * - 8.6, GA10x (GA102 whitepaper): 128 FP32 cores, 4 tensor cores of 128
 *   FP16 FMA; A40, 84 SMs at 1740 MHz: 37.4 / 74.8 / 149.7 / 299.3.
 * - 8.9, Ada (Ada whitepaper, L4 datasheet): as GA10x, with FP8; L4, 58 SMs
 *   at 2040 MHz: 30.3 / 60 / 121 / 242 / 242.
 * - 9.0, Hopper (H100 whitepaper): 128 FP32 cores, 4 tensor cores of 512
 *   FP16 FMA; H100 SXM5, 132 SMs at 1830 MHz: 989 TFLOPS bf16.
 *
 * GeForce cards run FP32-accumulating tensor work at half those rates
 * (Turing, GA102 and Ada whitepapers: "FP16 Tensor TFLOPS with FP32
 * Accumulate"). Other architectures (and other vendors) are not guessed. */
static const struct
{
  gint   major, minor;
  double per_sm_clock[CP_N_PRECISIONS];   /* FLOP (OP for int8) per clock */
  gboolean geforce_half;
} arch_rates[] = {
  { 7, 0, { 128, 0, 1024, 0, 0 }, FALSE },
  { 7, 5, { 128, 0, 1024, 0, 2048 }, TRUE },
  { 8, 0, { 128, 1024, 2048, 0, 4096 }, FALSE },
  { 8, 6, { 256, 512, 1024, 0, 2048 }, TRUE },
  { 8, 9, { 256, 512, 1024, 2048, 2048 }, TRUE },
  { 9, 0, { 256, 2048, 4096, 8192, 8192 }, FALSE },
};

gboolean
cp_device_peak_from_properties (const char *name,
                                gint        compute_major,
                                gint        compute_minor,
                                gint        num_sms,
                                gint64      clock_khz,
                                double      tflops[CP_N_PRECISIONS])
{
  gboolean geforce = name != NULL && strstr (name, "GeForce") != NULL;

  if (num_sms <= 0 || clock_khz <= 0)
    return FALSE;
  for (guint r = 0; r < G_N_ELEMENTS (arch_rates); r++)
    {
      if (arch_rates[r].major != compute_major || arch_rates[r].minor != compute_minor)
        continue;
      for (guint p = 0; p < CP_N_PRECISIONS; p++)
        {
          double rate = arch_rates[r].per_sm_clock[p];

          /* Half rate for FP32-accumulating tensor work on GeForce. */
          if (geforce && arch_rates[r].geforce_half && p != CP_PRECISION_FP32 && p != CP_PRECISION_INT8)
            rate /= 2;
          tflops[p] = rate * num_sms * (double) clock_khz * 1e3 / 1e12;
        }
      return TRUE;
    }
  return FALSE;
}
