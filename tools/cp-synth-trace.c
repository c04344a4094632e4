/* cp-synth-trace.c: a synthetic training capture built straight into the model
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-synth-trace.h"

static const char *kernel_names[] = {
  "ampere_sgemm_128x64_tn",
  "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn",
  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps>>",
  "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>",
  "void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10>",
  "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>",
  "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
  "void at::native::index_elementwise_kernel<128, 4>",
  "void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false>",
  "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
  "void at::native::layer_norm_kernel<float, float>",
};

static const char *op_names[] = {
  "aten::linear", "aten::add", "aten::mean", "aten::batch_norm", "aten::softmax",
  "aten::copy_", "cutlass_gemm", "aten::index", "aten::addmm", "aten::gelu", "aten::layer_norm",
};

static CpSliceRef
add (CpTraceBuilder *b,
     guint           lane,
     gint64          start,
     gint64          dur,
     CpStr           name,
     CpStr           cat,
     gint64          corr,
     guint16         flags)
{
  CpSliceInit init;

  cp_slice_init_clear (&init);
  init.start = start;
  init.dur = dur;
  init.name = name;
  init.cat = cat;
  init.corr = corr;
  init.flags = flags;
  return cp_trace_builder_add_slice (b, lane, &init);
}

CpTrace *
cp_synth_trace_new (guint64   target_slices,
                    guint32   seed,
                    GError  **error)
{
  g_autoptr(CpTraceBuilder) b = cp_trace_builder_new ();
  GRand *rand = g_rand_new_with_seed (seed);
  guint host = cp_trace_builder_process_for_pid (b, 4242);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint main_thread, loader, stream7, stream8, htod, dtoh, memset_lane, mem_counter;
  CpStr kernel_ids[G_N_ELEMENTS (kernel_names)];
  CpStr op_ids[G_N_ELEMENTS (op_names)];
  CpStr step_name, fwd, bwd, opt, launch, next, memcpy_h, memcpy_d, memset_n, nccl, sync;
  CpStr cat_op, cat_rt, cat_kernel, cat_memcpy, cat_user;
  CpDevice *dev;
  guint64 n = 0;
  gint64 t = 1000000;  /* absolute ns: the builder moves the origin */
  gint64 corr = 1;
  CpTrace *trace;

  cp_trace_builder_get_process (b, host)->name = cp_trace_builder_intern (b, "python", -1);
  {
    CpProcess *p = cp_trace_builder_get_process (b, gpu);

    p->name = cp_trace_builder_intern (b, "GPU 0", -1);
    p->is_device = TRUE;
    p->device = 0;
  }
  dev = cp_trace_builder_device (b, 0);
  dev->name = cp_trace_builder_intern (b, "NVIDIA A100-SXM4-80GB", -1);

  main_thread = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 4242, 0 });
  cp_trace_builder_set_lane_name (b, main_thread, "python (thread 4242)");
  loader = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 4250, 0 });
  cp_trace_builder_set_lane_name (b, loader, "pt_data_worker (thread 4250)");
  stream7 = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  cp_trace_builder_set_lane_name (b, stream7, "stream 7");
  cp_trace_builder_set_lane_device (b, stream7, 0, 7);
  stream8 = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 8, 0 });
  cp_trace_builder_set_lane_name (b, stream8, "stream 8 (NCCL)");
  cp_trace_builder_set_lane_device (b, stream8, 0, 8);
  htod = cp_trace_builder_lane (b, gpu, CP_LANE_TRANSFER, (CpLaneKey) { CP_TRANSFER_HTOD, 0 });
  cp_trace_builder_set_lane_transfer_kind (b, htod, CP_TRANSFER_HTOD);
  cp_trace_builder_set_lane_name (b, htod, "Memcpy HtoD");
  cp_trace_builder_set_lane_device (b, htod, 0, 7);
  dtoh = cp_trace_builder_lane (b, gpu, CP_LANE_TRANSFER, (CpLaneKey) { CP_TRANSFER_DTOH, 0 });
  cp_trace_builder_set_lane_transfer_kind (b, dtoh, CP_TRANSFER_DTOH);
  cp_trace_builder_set_lane_name (b, dtoh, "Memcpy DtoH");
  cp_trace_builder_set_lane_device (b, dtoh, 0, 7);
  memset_lane = cp_trace_builder_lane (b, gpu, CP_LANE_TRANSFER, (CpLaneKey) { CP_TRANSFER_MEMSET, 0 });
  cp_trace_builder_set_lane_transfer_kind (b, memset_lane, CP_TRANSFER_MEMSET);
  cp_trace_builder_set_lane_name (b, memset_lane, "Memset");
  cp_trace_builder_set_lane_device (b, memset_lane, 0, 7);
  mem_counter = cp_trace_builder_lane (b, gpu, CP_LANE_COUNTER, (CpLaneKey) { 0, cp_trace_builder_intern (b, "mem", -1) });
  cp_trace_builder_set_lane_name (b, mem_counter, "GPU memory allocated (MB)");

  for (guint i = 0; i < G_N_ELEMENTS (kernel_names); i++)
    kernel_ids[i] = cp_trace_builder_intern (b, kernel_names[i], -1);
  for (guint i = 0; i < G_N_ELEMENTS (op_names); i++)
    op_ids[i] = cp_trace_builder_intern (b, op_names[i], -1);
  fwd = cp_trace_builder_intern (b, "forward", -1);
  bwd = cp_trace_builder_intern (b, "backward", -1);
  opt = cp_trace_builder_intern (b, "Optimizer.step#SGD.step", -1);
  launch = cp_trace_builder_intern (b, "cudaLaunchKernel", -1);
  next = cp_trace_builder_intern (b, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", -1);
  memcpy_h = cp_trace_builder_intern (b, "Memcpy HtoD (Pageable -> Device)", -1);
  memcpy_d = cp_trace_builder_intern (b, "Memcpy DtoH (Device -> Pinned)", -1);
  memset_n = cp_trace_builder_intern (b, "Memset (Device)", -1);
  nccl = cp_trace_builder_intern (b, "ncclKernel_AllReduce_RING_LL_Sum_float", -1);
  sync = cp_trace_builder_intern (b, "cudaStreamSynchronize", -1);
  cat_op = cp_trace_builder_intern (b, "cpu_op", -1);
  cat_rt = cp_trace_builder_intern (b, "cuda_runtime", -1);
  cat_kernel = cp_trace_builder_intern (b, "kernel", -1);
  cat_memcpy = cp_trace_builder_intern (b, "gpu_memcpy", -1);
  cat_user = cp_trace_builder_intern (b, "user_annotation", -1);

  for (guint step = 0; n < target_slices; step++)
    {
      g_autofree char *step_text = g_strdup_printf ("ProfilerStep#%u", step);
      gint64 step_start = t, gpu_t;
      CpSliceRef marker;
      guint ops = 150 + g_rand_int_range (rand, 0, 100);
      double mem = 2000;

      step_name = cp_trace_builder_intern (b, step_text, -1);

      /* Input: the loader hands a batch over, then an HtoD copy. */
      add (b, loader, t - 3000000, 2800000, next, cat_user, CP_NONE, 0);
      add (b, main_thread, t + 2000, 150000, next, cat_user, CP_NONE, 0);
      t += 160000;
      add (b, htod, t + 5000, 400000 + g_rand_int_range (rand, 0, 200000), memcpy_h, cat_memcpy, CP_NONE,
           CP_SLICE_PAGEABLE);
      add (b, memset_lane, t + 420000, 3000, memset_n, cat_memcpy, CP_NONE, 0);
      gpu_t = t + 650000;
      n += 5;

      /* Forward, backward, optimizer: each op launches one kernel. */
      for (guint phase = 0; phase < 3; phase++)
        {
          guint phase_ops = phase == 0 ? ops * 2 / 5 : phase == 1 ? ops / 2 : ops / 10;
          gint64 phase_start = t;
          CpStr phase_name = phase == 0 ? fwd : phase == 1 ? bwd : opt;

          for (guint o = 0; o < phase_ops; o++)
            {
              guint which = g_rand_int_range (rand, 0, G_N_ELEMENTS (op_names));
              gint64 op_dur = 18000 + g_rand_int_range (rand, 0, 30000);
              gint64 k_dur = 3000 + g_rand_int_range (rand, 0, which % 3 == 0 ? 120000 : 25000);

              add (b, main_thread, t, op_dur, op_ids[which], cat_op, CP_NONE, 0);
              add (b, main_thread, t + op_dur - 9000, 7000, launch, cat_rt, corr, 0);
              gpu_t = MAX (gpu_t, t + op_dur - 2000);
              add (b, stream7, gpu_t, k_dur, kernel_ids[which % G_N_ELEMENTS (kernel_names)],
                   cat_kernel, corr, 0);
              gpu_t += k_dur + 1500 + g_rand_int_range (rand, 0, 2000);
              corr++;
              t += op_dur + 1000 + g_rand_int_range (rand, 0, 3000);
              mem += g_rand_double_range (rand, -20, 30);
              cp_trace_builder_add_counter (b, mem_counter, gpu_t, mem);
              n += 3;
            }
          add (b, main_thread, phase_start - 500, t - phase_start + 1000, phase_name, cat_user, CP_NONE, 0);
          n++;
          if (phase == 1)
            {
              add (b, stream8, gpu_t - 400000, 900000, nccl, cat_kernel, CP_NONE, 0);
              n++;
            }
        }

      /* Wait for the GPU, copy the loss back. */
      if (gpu_t > t)
        {
          add (b, main_thread, t, gpu_t - t + 20000, sync, cat_rt, CP_NONE, CP_SLICE_SYNC);
          t = gpu_t + 20000;
          n++;
        }
      add (b, dtoh, t, 12000, memcpy_d, cat_memcpy, CP_NONE, CP_SLICE_PINNED);
      t += 40000;
      marker = add (b, main_thread, step_start, t - step_start, step_name, cat_user, CP_NONE, 0);
      cp_trace_builder_add_step (b, step, step_start, t, marker);
      t += 50000;
      n += 2;
    }

  g_rand_free (rand);
  trace = cp_trace_builder_finish (g_steal_pointer (&b), error);
  return trace;
}
