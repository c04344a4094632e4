/* cp-compact-gen.c: a compact Kineto-style capture for the benchmarks
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-compact-gen.h"

/* --compact: a capture shaped like a real compact Kineto export (short
 * names, few arguments, one host thread and one stream), written here
 * rather than by cp-gen, whose events carry many more arguments. Each
 * iteration: an operator, its launch, the kernel and the launch flow's two
 * ends; a ProfilerStep every 500 iterations. */
char *
cp_compact_gen_write (const char *dir,
                      const char *size)
{
  static const char *ops[] = { "aten::addmm", "aten::mul", "aten::add_", "aten::gelu", "aten::copy_" };
  static const char *kernels[] = {
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize96x128x32_stage4_warpsize2x2x1",
    "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
    "void at::native::GeluCUDAKernelImpl",
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>",
  };
  char *out = g_build_filename (dir, "compact.json", NULL);
  guint64 want = g_ascii_strtoull (size, NULL, 10);
  char unit = size[strspn (size, "0123456789")];
  FILE *f;
  guint64 written = 0, corr = 1, ext = 1;
  gint64 ts = 1700000000000000;   /* ns */
  guint64 step = 1, step_start = 0;

  if (unit == 'k' || unit == 'K')
    want <<= 10;
  else if (unit == 'M')
    want <<= 20;
  else if (unit == 'G')
    want <<= 30;
  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return out;
  f = fopen (out, "w");
  if (f == NULL)
    {
      g_printerr ("cannot write %s: %s\n", out, g_strerror (errno));
      exit (1);
    }
  written += fprintf (f, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100\"}],"
                      "\"traceEvents\":[\n");
  for (guint64 i = 0; written < want; i++)
    {
      guint k = i % G_N_ELEMENTS (ops);
      gint64 d = 4000 + (gint64) (i * 7919 % 9000);

      if (i % 500 == 0)
        {
          if (i > 0)
            written += fprintf (f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%" G_GUINT64_FORMAT
                                "\",\"pid\":1,\"tid\":1,\"ts\":%" G_GINT64_FORMAT ".%03d,\"dur\":%" G_GINT64_FORMAT
                                ".%03d},\n", step++, (gint64) step_start / 1000, (int) (step_start % 1000),
                                (ts - (gint64) step_start) / 1000, (int) ((ts - (gint64) step_start) % 1000));
          step_start = ts;
        }
      written += fprintf (f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%" G_GINT64_FORMAT ".%03d,\"dur\":%" G_GINT64_FORMAT ".%03d,"
                          "\"args\":{\"External id\":%" G_GUINT64_FORMAT "}},\n",
                          ops[k], ts / 1000, (int) (ts % 1000), d / 1000, (int) (d % 1000), ext);
      written += fprintf (f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%" G_GINT64_FORMAT ".%03d,\"dur\":2.500,"
                          "\"args\":{\"correlation\":%" G_GUINT64_FORMAT "}},\n",
                          (ts + 1000) / 1000, (int) ((ts + 1000) % 1000), corr);
      written += fprintf (f, "{\"ph\":\"s\",\"id\":%" G_GUINT64_FORMAT ",\"pid\":1,\"tid\":1,\"ts\":%" G_GINT64_FORMAT
                          ".%03d,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n",
                          corr, (ts + 1000) / 1000, (int) ((ts + 1000) % 1000));
      written += fprintf (f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,"
                          "\"ts\":%" G_GINT64_FORMAT ".%03d,\"dur\":%" G_GINT64_FORMAT ".%03d,"
                          "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%" G_GUINT64_FORMAT "}},\n",
                          kernels[k], (ts + 5000) / 1000, (int) ((ts + 5000) % 1000), (d - 1000) / 1000,
                          (int) ((d - 1000) % 1000), corr);
      written += fprintf (f, "{\"ph\":\"f\",\"id\":%" G_GUINT64_FORMAT ",\"pid\":0,\"tid\":7,\"ts\":%" G_GINT64_FORMAT
                          ".%03d,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n",
                          corr, (ts + 5000) / 1000, (int) ((ts + 5000) % 1000));
      corr++;
      ext++;
      ts += d + 1500;
    }
  fprintf (f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}\n],"
           "\"baseTimeNanoseconds\":0}\n");
  if (fclose (f) != 0)
    {
      g_printerr ("cannot write %s: %s\n", out, g_strerror (errno));
      exit (1);
    }
  return out;
}

