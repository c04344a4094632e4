/* test-classify.c: what names say (tensor cores, precision, copies, APIs)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "analysis/cp-classify.h"

static gboolean
has (const char *name,
     guint32     flag)
{
  return (cp_classify_name (name) & flag) != 0;
}

static void
test_tensor_cores (void)
{
  /* XProf's patterns. */
  g_assert_true (has ("volta_h884gemm_64x64_ldg8_nn", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("ampere_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("implicit_convolve_hmma_kernel", CP_NAME_TENSOR_CORE));
  /* Chokepoint's additions. */
  g_assert_true (has ("sm90_gemm_bf16_wgmma_128x256", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_NTN", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64>>", CP_NAME_TENSOR_CORE));
  /* Not tensor cores. */
  g_assert_false (has ("volta_sgemm_128x64_nn", CP_NAME_TENSOR_CORE));
  g_assert_false (has ("ampere_sgemm_64x32_sliced1x4_tn", CP_NAME_TENSOR_CORE));
  g_assert_false (has ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", CP_NAME_TENSOR_CORE));
  g_assert_false (has ("cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>", CP_NAME_TENSOR_CORE));
}

static void
test_precision (void)
{
  g_assert_true (has ("volta_h884gemm_64x64_ldg8_nn", CP_NAME_HALF));
  g_assert_true (has ("elementwise_kernel<c10::Half>", CP_NAME_HALF));
  g_assert_true (has ("at::native::reduce_kernel<c10::BFloat16>", CP_NAME_HALF));
  g_assert_true (has ("sm80_xmma_gemm_bf16bf16_bf16f32", CP_NAME_HALF));
  g_assert_true (has ("gemm_fp8_e4m3", CP_NAME_HALF));
  g_assert_false (has ("volta_sgemm_128x64_nn", CP_NAME_HALF));
  /* AMD Tensile / hipBLASLt: the data-type field (bf16 BBS, half HHS; SB is fp32). */
  g_assert_true (has ("Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1", CP_NAME_HALF));
  g_assert_true (has ("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN", CP_NAME_HALF));
  g_assert_true (has ("Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN", CP_NAME_TENSOR_CORE));
  g_assert_false (has ("Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0", CP_NAME_HALF));
  g_assert_false (has ("Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0", CP_NAME_TENSOR_CORE));
  g_assert_true (has ("Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0", CP_NAME_GEMM_LIKE));
  g_assert_false (has ("sm80_xmma_gemm_f32f32_tf32f32_f32_nn", CP_NAME_HALF));
  /* GEMM-like work that tensor cores could run. */
  g_assert_true (has ("volta_sgemm_128x64_nn", CP_NAME_GEMM_LIKE));
  g_assert_true (has ("implicit_convolve_sgemm", CP_NAME_GEMM_LIKE));
  g_assert_true (has ("cudnn::detail::implicit_convolve_sgemm", CP_NAME_GEMM_LIKE));
  g_assert_false (has ("void at::native::elementwise_kernel", CP_NAME_GEMM_LIKE));
  g_assert_false (has ("convert_fusion", CP_NAME_GEMM_LIKE));
}

/* Kernels that only move or lay out data (real names from MIOpen, cuDNN,
 * PyTorch, TorchRec and Inductor captures), and kernels that compute
 * although their names mention a copy, a fill or a layout. */
static void
test_data_movement (void)
{
  static const char * const moves[] = {
    "batched_transpose_32x32_half",
    "batched_transpose_64x16_pack_4x1_ediv_2x1_half",
    "transpose_NCHW2CNHW_V2_2D_WG_off64",
    "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"
    "(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
    "void nhwcToNchwKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>(int, int, int, int)",
    "void permute_pooled_embs_kernel<float>(float const*, long const*, float*, long)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const>",
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::masked_fill_kernel"
    "(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}>",
    "SubTensorOpWithScalar1d",
    "SubTensorOpWithCastTensor1d",
    "_combined_routing_memset",
    "Memcpy DtoD (Device -> Device)",
    "Memset (Device)",
    "triton_poi_fused__to_copy_1",
    "triton_poi_fused__unsafe_view_clone_slice_transpose_11",
  };
  static const char * const computes[] = {
    "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64_gkgs",
    "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_28GridwiseGemm_xdl"
    "_cshuffle_v3INS_13tensor_layout4gemm8RowMajorE",
    "Cijk_Ailk_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN_1LDSB0_APM1",
    "cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::Copy_Atom<cute::SM90_TMA_LOAD>>>",
    "_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelE",
    "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>>",
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
    "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16>>",
    "void rocprim::detail::trampoline_kernel<hipcub::TransformInputIterator<bool, "
    "at::native::(anonymous namespace)::NonZeroOp<bool>>>",
    "void at::native::(anonymous namespace)::max_pool_forward_nchw<c10::BFloat16>(int)",
    "triton_poi_fused__to_copy_add_addmm_mean_mul_pow_rsqrt_transpose_view_8",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    "volta_sgemm_128x64_nn",
  };

  for (guint i = 0; i < G_N_ELEMENTS (moves); i++)
    if (!has (moves[i], CP_NAME_DATA_MOVEMENT))
      g_error ("%s moves data", moves[i]);
  for (guint i = 0; i < G_N_ELEMENTS (computes); i++)
    if (has (computes[i], CP_NAME_DATA_MOVEMENT))
      g_error ("%s computes", computes[i]);
}

static void
test_device_names (void)
{
  guint32 f = cp_classify_name ("Memcpy HtoD (Pageable -> Device)");

  g_assert_true (f & CP_NAME_MEMCPY);
  g_assert_true (f & CP_NAME_PAGEABLE);
  g_assert_cmpint (cp_classify_copy_kind (f), ==, CP_TRANSFER_HTOD);
  g_assert_cmpint (cp_classify_copy_kind (cp_classify_name ("Memcpy DtoH (Device -> Pinned)")), ==, CP_TRANSFER_DTOH);
  g_assert_cmpint (cp_classify_copy_kind (cp_classify_name ("MemcpyD2D")), ==, CP_TRANSFER_DTOD);
  g_assert_cmpint (cp_classify_copy_kind (cp_classify_name ("MemcpyP2P")), ==, CP_TRANSFER_PTOP);
  g_assert_cmpint (cp_classify_copy_kind (cp_classify_name ("Memset (Device)")), ==, CP_TRANSFER_MEMSET);
  g_assert_cmpint (cp_classify_copy_kind (cp_classify_name ("volta_sgemm")), ==, CP_TRANSFER_NONE);
  g_assert_false (has ("cudaMemcpyAsync", CP_NAME_MEMCPY));

  g_assert_true (has ("ncclKernel_AllReduce_RING_LL_Sum_float", CP_NAME_COLLECTIVE));
  g_assert_true (has ("ncclDevKernel_AllGather_RING_LL", CP_NAME_COLLECTIVE));
  g_assert_true (has ("void ncclKernel<...>", CP_NAME_COLLECTIVE));
  g_assert_false (has ("nccl:all_reduce", CP_NAME_HOST_COMM));
  g_assert_true (has ("gloo:all_reduce", CP_NAME_HOST_COMM));
  g_assert_true (has ("Stream Sync", CP_NAME_DEVICE_WAIT));
}

static void
test_host_names (void)
{
  g_assert_true (has ("cudaLaunchKernel", CP_NAME_LAUNCH));
  g_assert_true (has ("cudaLaunchKernelExC", CP_NAME_LAUNCH));
  g_assert_true (has ("cuLaunchKernel", CP_NAME_LAUNCH));
  g_assert_true (has ("hipExtModuleLaunchKernel", CP_NAME_LAUNCH));
  g_assert_true (has ("cudaGraphLaunch", CP_NAME_LAUNCH));
  g_assert_true (has ("cudaMemcpyAsync", CP_NAME_LAUNCH));
  g_assert_true (has ("cudaMemsetAsync", CP_NAME_LAUNCH));
  g_assert_true (has ("cudaMemcpy", CP_NAME_SYNC_COPY));
  g_assert_true (has ("cudaDeviceSynchronize", CP_NAME_SYNC));
  g_assert_true (has ("cudaStreamSynchronize", CP_NAME_SYNC));
  g_assert_true (has ("cuStreamSynchronize", CP_NAME_SYNC));
  g_assert_false (has ("cudaStreamSynchronize", CP_NAME_LAUNCH));
  g_assert_true (has ("cudaMalloc", CP_NAME_RUNTIME));
  g_assert_false (has ("cudaMalloc", CP_NAME_LAUNCH | CP_NAME_SYNC));
  g_assert_false (has ("custom_op", CP_NAME_RUNTIME));
  g_assert_false (has ("cuda_graph_replay", CP_NAME_RUNTIME));
  g_assert_true (has ("aten::item", CP_NAME_ITEM));
  g_assert_true (has ("aten::_local_scalar_dense", CP_NAME_ITEM));

  g_assert_true (has ("ProfilerStep#12", CP_NAME_STEP));
  g_assert_true (has ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", CP_NAME_INPUT_WAIT));
  g_assert_true (has ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", CP_NAME_LOADER_SINGLE));
  g_assert_false (has ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", CP_NAME_LOADER_SINGLE));
  g_assert_true (has ("IteratorGetNext", CP_NAME_INPUT_WAIT));
  g_assert_true (has ("torch/utils/data/dataloader.py(628): __next__", CP_NAME_INPUT_WAIT));
  g_assert_true (has ("nn.Module: DataParallel_0", CP_NAME_DATAPARALLEL));
  g_assert_true (has ("torch/nn/parallel/data_parallel.py(166): forward", CP_NAME_DATAPARALLEL));
  g_assert_false (has ("nn.Module: DistributedDataParallel_0", CP_NAME_DATAPARALLEL));
  g_assert_true (has ("DistributedDataParallel.forward", CP_NAME_DDP));

  /* Tensor-core eligible ops. */
  g_assert_true (has ("aten::addmm", CP_NAME_TC_ELIGIBLE));
  g_assert_true (has ("aten::cudnn_convolution", CP_NAME_TC_ELIGIBLE));
  g_assert_true (has ("aten::lstm_cell", CP_NAME_TC_ELIGIBLE));
  g_assert_true (has ("autograd::engine::evaluate_function: AddmmBackward0", CP_NAME_TC_ELIGIBLE));
  g_assert_true (has ("model/dense/MatMul", CP_NAME_TC_ELIGIBLE));
  g_assert_true (has ("model/conv1/Conv2D", CP_NAME_TC_ELIGIBLE));
  g_assert_true (has ("BatchMatMulV2", CP_NAME_TC_ELIGIBLE));
  g_assert_false (has ("aten::add", CP_NAME_TC_ELIGIBLE));
  g_assert_false (has ("aten::mmx", CP_NAME_TC_ELIGIBLE));
}

static void
test_empty (void)
{
  g_assert_cmpuint (cp_classify_name (NULL), ==, 0);
  g_assert_cmpuint (cp_classify_name (""), ==, 0);
  /* A long name goes through the heap buffer. */
  {
    g_autofree char *lng = g_strnfill (5000, 'x');
    g_autofree char *name = g_strconcat (lng, "_h884gemm", NULL);

    g_assert_true (has (name, CP_NAME_TENSOR_CORE | CP_NAME_HALF));
  }
}

/* Inductor's kernel names (torch/_inductor: "triton_" + kind + "_fused_" +
 * the origin ops joined by "_" + "_" + the kernel's number). */
static void
test_inductor_names (void)
{
  static const struct { const char *name; const char *kind; const char *fused; } cases[] = {
    { "triton_red_fused_add_mean_mul_pow_rsqrt_0", "reduction", "add_mean_mul_pow_rsqrt" },
    { "triton_poi_fused__unsafe_view_add_3", "pointwise", "_unsafe_view_add" },
    { "triton_per_fused__softmax_12", "persistent reduction", "_softmax" },
    { "triton_tem_fused_mm_7", "template", "mm" },
    { "cpp_fused_mul_silu_1", "C++", "mul_silu" },
    { "triton_poi_fused_add_cos_sin_0", "pointwise", "add_cos_sin" },
    /* Not Inductor's, or not whole. */
    { "triton_red_fused_add", NULL, NULL },
    { "triton_poi_fused_0", NULL, NULL },
    { "triton_poi_fused_", NULL, NULL },
    { "my_triton_poi_fused_add_0", NULL, NULL },
    { "ampere_sgemm_128x64_nn", NULL, NULL },
    { "", NULL, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *kind = "unset";
      g_autofree char *fused = NULL;
      gboolean ok = cp_classify_inductor_kernel (cases[i].name, &kind, &fused);

      g_assert_cmpint (ok, ==, cases[i].kind != NULL);
      g_assert_cmpstr (kind, ==, cases[i].kind);
      g_assert_cmpstr (fused, ==, cases[i].fused);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/classify/tensor-cores", test_tensor_cores);
  g_test_add_func ("/classify/precision", test_precision);
  g_test_add_func ("/classify/device-names", test_device_names);
  g_test_add_func ("/classify/data-movement", test_data_movement);
  g_test_add_func ("/classify/host-names", test_host_names);
  g_test_add_func ("/classify/empty", test_empty);
  g_test_add_func ("/classify/inductor-names", test_inductor_names);

  return g_test_run ();
}
