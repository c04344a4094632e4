/* cp-gen-sim.c: the training-loop simulation behind cp-gen
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model: host threads advance their own clocks while they run operators;
 * each CUDA launch records a runtime call on the host and an activity on a
 * stream that starts when the call was made (plus latency), the stream is
 * free and any event dependency is met. A stream holds at most
 * CP_GEN_QUEUE_DEPTH pending launches: beyond that a launch call blocks until
 * the oldest pending one starts, as the CUDA driver does. Synchronising calls
 * block the host until the stream drains. Every duration comes from a table
 * of realistic figures for an H100-class GPU, jittered by a seeded PRNG, so
 * a scenario and a seed always give the same capture.
 *
 * Each scenario changes one thing in an otherwise healthy loop; the figures
 * in the comments beside each scenario are what the diagnosis thresholds in
 * docs/diagnosis-rules.md are compared with (tools/README.md has the table).
 */

#include "config.h"

#include <string.h>

#include "cp-gen.h"

#define US(x) ((gint64) ((x) * 1000.0))
#define MS(x) ((gint64) ((x) * 1000000.0))

#define CP_GEN_QUEUE_DEPTH 1024

/* CUPTI runtime callback ids (cupti_runtime_cbid.h). */
#define CBID_MALLOC              20
#define CBID_FREE                22
#define CBID_MEMCPY_ASYNC        41
#define CBID_MEMSET_ASYNC        51
#define CBID_STREAM_SYNCHRONIZE 131
#define CBID_EVENT_RECORD       135
#define CBID_EVENT_SYNCHRONIZE  137
#define CBID_STREAM_WAIT_EVENT  147
#define CBID_DEVICE_SYNCHRONIZE 165
#define CBID_LAUNCH_KERNEL      211

/* ------------------------------------------------------------------------ */
/* Kernels                                                                  */

typedef enum
{
  /* Vision transformer, bf16 with tensor cores. */
  K_GEMM_FWD,
  K_GEMM_DGRAD,
  K_GEMM_WGRAD,
  K_GEMM_SMALL,
  K_FLASH_FWD,
  K_FLASH_BWD_DOT,
  K_FLASH_BWD,
  K_FLASH_BWD_CONVERT,
  K_LN_FWD,
  K_LN_BWD_INPUT,
  K_LN_BWD_GAMMA,
  K_ADD,
  K_GELU,
  K_GELU_BWD,
  K_BIAS_SUM,
  K_CONV,
  K_LOG_SOFTMAX,
  K_NLL,
  K_LOG_SOFTMAX_BWD,
  K_NLL_BWD,
  K_FOREACH_SCALAR,
  K_FOREACH_LIST,
  K_FOREACH_POINTWISE,
  K_FOREACH_UNARY,
  K_NCCL_ALLREDUCE,
  K_MAX,
  K_INDEX,
  K_TOPK,
  K_NORM,
  K_EQ,
  K_SUM_ALL,
  K_FILL,
  /* The same model without mixed precision (fp32, SIMT kernels). */
  K32_GEMM_TN,
  K32_GEMM_NN,
  K32_GEMM_NT,
  K32_GEMM_SMALL,
  K32_BMM,
  K32_BMM_NT,
  K32_SOFTMAX,
  K32_SOFTMAX_BWD,
  K32_LN_FWD,
  K32_LN_BWD_INPUT,
  K32_LN_BWD_GAMMA,
  K32_ADD,
  K32_GELU,
  K32_GELU_BWD,
  K32_BIAS_SUM,
  K32_CONV,
  /* Tiny MLP (launch-bound). */
  KT_GEMM,
  KT_GEMM_NN,
  KT_GEMM_NT,
  KT_RELU,
  KT_RELU_BWD,
  KT_SUM,
  KT_SUB,
  KT_POW,
  KT_MEAN,
  KT_MSE_BWD,
  KT_ADAM_LERP,
  KT_ADAM_MUL,
  KT_ADAM_ADDCMUL,
  KT_ADAM_SQRT,
  KT_ADAM_DIV,
  KT_ADAM_ADD,
  KT_ADAM_ADDCDIV,
  /* What cuDNN times in a first iteration (torch.backends.cudnn.benchmark)
   * for the patch embedding's convolution: forward algorithms, then those
   * of its weight gradient. */
  KW_FPROP_IMPLICIT,
  KW_FPROP_PRECOMP,
  KW_IM2COL,
  KW_FPROP_GEMM,
  KW_FFT_R2C,
  KW_FFT_CGEMM,
  KW_FFT_C2R,
  KW_WGRAD_IMPLICIT,
  KW_WGRAD_ALG0,
  KW_WGRAD_ALG1,
  K_N_SPECS
} KernelId;

#define GEMM_ARGS_BF16 "sm90_xmma_gemm_bf16bf16_bf16f32_f32_"
#define FLASH_TRAITS "Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >"
#define MTA "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
#define VEC "void at::native::vectorized_elementwise_kernel<4, "

static const CpGenKernelSpec kernel_specs[K_N_SPECS] = {
  [K_GEMM_FWD] = { GEMM_ARGS_BF16 "tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
                   { 9, 99, 1 }, { 384, 1, 1 }, 168, 0, 213248, 19 },
  [K_GEMM_DGRAD] = { GEMM_ARGS_BF16 "nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                     { 6, 99, 1 }, { 256, 1, 1 }, 168, 0, 197632, 13 },
  [K_GEMM_WGRAD] = { GEMM_ARGS_BF16 "nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_on_kernel__5x_cublas",
                     { 6, 18, 4 }, { 256, 1, 1 }, 168, 0, 197632, 13 },
  [K_GEMM_SMALL] = { GEMM_ARGS_BF16 "tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                     { 16, 1, 1 }, { 128, 1, 1 }, 90, 0, 90112, 6 },
  [K_FLASH_FWD] = { "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
                    { 2, 64, 12 }, { 128, 1, 1 }, 255, 0, 49152, 12 },
  [K_FLASH_BWD_DOT] = { "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, " FLASH_TRAITS " >(pytorch_flash::Flash_bwd_params)",
                        { 2, 64, 12 }, { 256, 1, 1 }, 40, 0, 0, 48 },
  [K_FLASH_BWD] = { "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<" FLASH_TRAITS ", true, false, false, false, false, false>(pytorch_flash::Flash_bwd_params)",
                    { 2, 64, 12 }, { 256, 1, 1 }, 255, 0, 98304, 12 },
  [K_FLASH_BWD_CONVERT] = { "void pytorch_flash::flash_bwd_convert_dq_kernel<" FLASH_TRAITS " >(pytorch_flash::Flash_bwd_params, int)",
                            { 2, 64, 12 }, { 256, 1, 1 }, 32, 0, 16384, 50 },
  [K_LN_FWD] = { "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
                 { 12608, 1, 1 }, { 128, 1, 1 }, 30, 0, 0, 83 },
  [K_LN_BWD_INPUT] = { "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)",
                       { 12608, 1, 1 }, { 128, 1, 1 }, 38, 2048, 0, 80 },
  [K_LN_BWD_GAMMA] = { "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<c10::BFloat16, float, 32u, 32u, 256u, false, true>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)",
                       { 24, 1, 1 }, { 32, 32, 1 }, 64, 8448, 0, 15 },
  [K_ADD] = { VEC "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
              { 9456, 1, 1 }, { 128, 1, 1 }, 24, 0, 0, 88 },
  [K_GELU] = { VEC "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
               { 37824, 1, 1 }, { 128, 1, 1 }, 26, 0, 0, 89 },
  [K_GELU_BWD] = { VEC "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)",
                   { 37824, 1, 1 }, { 128, 1, 1 }, 30, 0, 0, 87 },
  [K_BIAS_SUM] = { "void at::native::reduce_kernel<256, 2, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<float, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<float, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4>)",
                   { 96, 8, 1 }, { 32, 8, 1 }, 40, 16, 0, 42 },
  [K_CONV] = { "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x5_nhwc_align8>(cutlass_80_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x5_nhwc_align8::Params)",
               { 98, 6, 1 }, { 128, 1, 1 }, 232, 0, 81920, 9 },
  [K_LOG_SOFTMAX] = { "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
                      { 64, 1, 1 }, { 1024, 1, 1 }, 38, 128, 0, 45 },
  [K_NLL] = { "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
              { 1, 1, 1 }, { 32, 1, 1 }, 28, 256, 0, 2 },
  [K_LOG_SOFTMAX_BWD] = { "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)",
                          { 64, 1, 1 }, { 1024, 1, 1 }, 40, 128, 0, 44 },
  [K_NLL_BWD] = { "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
                  { 1, 1, 1 }, { 32, 1, 1 }, 24, 0, 0, 2 },
  [K_FOREACH_SCALAR] = { MTA "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 2, 1, 1>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 2, 1, 1>, std::multiplies<float>, float)",
                         { 2048, 1, 1 }, { 512, 1, 1 }, 32, 0, 0, 82 },
  [K_FOREACH_LIST] = { MTA "TensorListMetadata<3>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 3, 2, 2>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 3, 2, 2>, std::plus<float>, float)",
                       { 2048, 1, 1 }, { 512, 1, 1 }, 36, 0, 0, 80 },
  [K_FOREACH_POINTWISE] = { MTA "TensorListMetadata<4>, at::native::(anonymous namespace)::PointwiseOpScalarFunctor<float, 4, 3, 0>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::PointwiseOpScalarFunctor<float, 4, 3, 0>, std::multiplies<float>, float)",
                            { 2048, 1, 1 }, { 512, 1, 1 }, 40, 0, 0, 78 },
  [K_FOREACH_UNARY] = { MTA "TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, at::native::(anonymous namespace)::Sqrt<float>>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, at::native::(anonymous namespace)::Sqrt<float>)",
                        { 2048, 1, 1 }, { 512, 1, 1 }, 30, 0, 0, 83 },
  [K_NCCL_ALLREDUCE] = { "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                         { 24, 1, 1 }, { 640, 1, 1 }, 96, 0, 37952, 15 },
  [K_MAX] = { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<long, at::native::MaxOps<long>, unsigned int, long, 4, 4> >(at::native::ReduceOp<long, at::native::MaxOps<long>, unsigned int, long, 4, 4>)",
              { 1, 1, 1 }, { 32, 16, 1 }, 32, 16, 0, 4 },
  [K_INDEX] = { "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&)::{lambda(int)#1})",
                { 18912, 1, 1 }, { 128, 1, 1 }, 28, 0, 0, 85 },
  [K_TOPK] = { "void at::native::sbtopk::gatherTopK<c10::BFloat16, unsigned int, 2, false>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, unsigned int, unsigned int, bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, unsigned int*)",
               { 12608, 1, 1 }, { 32, 1, 1 }, 42, 112, 0, 24 },
  [K_NORM] = { "void at::native::lpnorm_cleanup<float, (at::native::NormType)1, float, float>(float const*, at::native::(anonymous namespace)::TensorListAddresses, int)",
               { 150, 1, 1 }, { 512, 1, 1 }, 26, 128, 0, 8 },
  [K_EQ] = { VEC "at::native::(anonymous namespace)::compare_scalar_kernel<long>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, long)::{lambda(long)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::compare_scalar_kernel<long>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, long)::{lambda(long)#1}, std::array<char*, 2ul>)",
             { 1, 1, 1 }, { 64, 1, 1 }, 20, 0, 0, 2 },
  [K_SUM_ALL] = { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<long, at::native::func_wrapper_t<long, at::native::sum_functor<long, long, long>::operator()(at::TensorIterator&)::{lambda(long, long)#1}>, unsigned int, long, 4, 4> >(at::native::ReduceOp<long, at::native::func_wrapper_t<long, at::native::sum_functor<long, long, long>::operator()(at::TensorIterator&)::{lambda(long, long)#1}>, unsigned int, long, 4, 4>)",
                  { 1, 1, 1 }, { 32, 16, 1 }, 32, 16, 0, 4 },
  [K_FILL] = { VEC "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
               { 1, 1, 1 }, { 128, 1, 1 }, 16, 0, 0, 3 },

  [K32_GEMM_TN] = { "ampere_sgemm_128x64_tn", { 18, 99, 1 }, { 128, 1, 1 }, 122, 12544, 0, 24 },
  [K32_GEMM_NN] = { "ampere_sgemm_128x128_nn", { 6, 99, 1 }, { 256, 1, 1 }, 126, 16384, 0, 24 },
  [K32_GEMM_NT] = { "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)",
                    { 3, 6, 4 }, { 256, 1, 1 }, 254, 0, 65536, 12 },
  [K32_GEMM_SMALL] = { "ampere_sgemm_64x64_tn", { 16, 1, 1 }, { 64, 1, 1 }, 122, 8192, 0, 6 },
  [K32_BMM] = { "ampere_sgemm_128x64_nn", { 2, 2, 768 }, { 128, 1, 1 }, 122, 12544, 0, 24 },
  [K32_BMM_NT] = { "ampere_sgemm_128x64_nt", { 2, 1, 768 }, { 128, 1, 1 }, 122, 12544, 0, 24 },
  [K32_SOFTMAX] = { "void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
                    { 37824, 1, 1 }, { 128, 1, 1 }, 40, 0, 0, 86 },
  [K32_SOFTMAX_BWD] = { "void (anonymous namespace)::softmax_warp_backward<float, float, float, 8, false, false>(float*, float const*, float const*, int, int, int, bool const*)",
                        { 37824, 1, 1 }, { 128, 1, 1 }, 42, 0, 0, 85 },
  [K32_LN_FWD] = { "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
                   { 12608, 1, 1 }, { 128, 1, 1 }, 30, 0, 0, 83 },
  [K32_LN_BWD_INPUT] = { "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
                         { 12608, 1, 1 }, { 128, 1, 1 }, 38, 2048, 0, 80 },
  [K32_LN_BWD_GAMMA] = { "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<float, float, 32u, 32u, 256u, false, true>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
                         { 24, 1, 1 }, { 32, 32, 1 }, 64, 8448, 0, 15 },
  [K32_ADD] = { VEC "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
                { 18912, 1, 1 }, { 128, 1, 1 }, 24, 0, 0, 88 },
  [K32_GELU] = { VEC "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)",
                 { 75648, 1, 1 }, { 128, 1, 1 }, 26, 0, 0, 89 },
  [K32_GELU_BWD] = { VEC "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul> >(int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul>)",
                     { 75648, 1, 1 }, { 128, 1, 1 }, 30, 0, 0, 87 },
  [K32_BIAS_SUM] = { "void at::native::reduce_kernel<256, 2, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
                     { 96, 8, 1 }, { 32, 8, 1 }, 40, 16, 0, 42 },
  [K32_CONV] = { "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
                 { 98, 6, 1 }, { 128, 1, 1 }, 90, 7168, 0, 19 },

  [KT_GEMM] = { GEMM_ARGS_BF16 "tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                { 16, 2, 1 }, { 128, 1, 1 }, 90, 0, 90112, 6 },
  [KT_GEMM_NN] = { GEMM_ARGS_BF16 "nn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                   { 16, 2, 1 }, { 128, 1, 1 }, 90, 0, 90112, 6 },
  [KT_GEMM_NT] = { GEMM_ARGS_BF16 "nt_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                   { 16, 16, 1 }, { 128, 1, 1 }, 90, 0, 90112, 12 },
  [KT_RELU] = { VEC "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
                { 128, 1, 1 }, { 128, 1, 1 }, 20, 0, 0, 10 },
  [KT_RELU_BWD] = { VEC "at::native::(anonymous namespace)::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, at::native::(anonymous namespace)::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)",
                    { 128, 1, 1 }, { 128, 1, 1 }, 22, 0, 0, 10 },
  [KT_SUM] = { "void at::native::reduce_kernel<256, 2, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<float, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<float, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4>)",
               { 8, 4, 1 }, { 32, 8, 1 }, 40, 16, 0, 4 },
  [KT_SUB] = { VEC "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
               { 128, 1, 1 }, { 128, 1, 1 }, 24, 0, 0, 10 },
  [KT_POW] = { VEC "at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<c10::BFloat16, c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<c10::BFloat16, c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
               { 128, 1, 1 }, { 128, 1, 1 }, 22, 0, 0, 10 },
  [KT_MEAN] = { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::MeanOps<c10::BFloat16, float, float, c10::BFloat16>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::MeanOps<c10::BFloat16, float, float, c10::BFloat16>, unsigned int, c10::BFloat16, 4, 4>)",
                { 4, 1, 1 }, { 32, 16, 1 }, 38, 16, 0, 3 },
  [KT_MSE_BWD] = { VEC "at::native::(anonymous namespace)::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 4ul> >(int, at::native::(anonymous namespace)::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 4ul>)",
                   { 128, 1, 1 }, { 128, 1, 1 }, 26, 0, 0, 10 },
  [KT_ADAM_LERP] = { VEC "at::native::(anonymous namespace)::lerp_scalar_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, at::native::(anonymous namespace)::lerp_scalar_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)",
                     { 1024, 1, 1 }, { 128, 1, 1 }, 24, 0, 0, 40 },
  [KT_ADAM_MUL] = { VEC "at::native::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)",
                    { 1024, 1, 1 }, { 128, 1, 1 }, 20, 0, 0, 42 },
  [KT_ADAM_ADDCMUL] = { VEC "at::native::addcmul_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 4ul> >(int, at::native::addcmul_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 4ul>)",
                        { 1024, 1, 1 }, { 128, 1, 1 }, 26, 0, 0, 38 },
  [KT_ADAM_SQRT] = { VEC "at::native::sqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::sqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
                     { 1024, 1, 1 }, { 128, 1, 1 }, 20, 0, 0, 42 },
  [KT_ADAM_DIV] = { VEC "at::native::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::DivFunctor<float> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::DivFunctor<float> >, std::array<char*, 2ul>)",
                    { 1024, 1, 1 }, { 128, 1, 1 }, 20, 0, 0, 42 },
  [KT_ADAM_ADD] = { VEC "at::native::CUDAFunctorOnSelf_add<c10::BFloat16>, std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<c10::BFloat16>, std::array<char*, 2ul>)",
                    { 1024, 1, 1 }, { 128, 1, 1 }, 20, 0, 0, 42 },
  [KT_ADAM_ADDCDIV] = { VEC "at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 4ul> >(int, at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 4ul>)",
                        { 1024, 1, 1 }, { 128, 1, 1 }, 26, 0, 0, 38 },

  [KW_FPROP_IMPLICIT] = { "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn",
                          { 392, 6, 1 }, { 256, 1, 1 }, 168, 0, 197632, 11 },
  [KW_FPROP_PRECOMP] = { "void cudnn::cnn::implicit_convolveNd_sgemm<__nv_bfloat16, 4, 128, 5, 5, 3, 3, 3, 1, true, false, true>(int, int, int, __nv_bfloat16 const*, int, __nv_bfloat16*, __nv_bfloat16 const*, kernel_convNd_params, unsigned long long, int, float, float, int, __nv_bfloat16 const*, __nv_bfloat16 const*)",
                         { 392, 6, 1 }, { 128, 1, 1 }, 96, 7168, 0, 21 },
  [KW_IM2COL] = { "void im2col4d_kernel<__nv_bfloat16, long>(im2col4d_params, cudnnConvolutionStruct, cudnnTensor4dStruct, __nv_bfloat16 const*, __nv_bfloat16*)",
                  { 50176, 1, 1 }, { 256, 1, 1 }, 32, 0, 0, 71 },
  [KW_FPROP_GEMM] = { GEMM_ARGS_BF16 "tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cudnn",
                      { 392, 6, 1 }, { 256, 1, 1 }, 168, 0, 197632, 13 },
  [KW_FFT_R2C] = { "void fft2d_r2c_32x32<__nv_bfloat16, false, 0u, false>(float2*, __nv_bfloat16 const*, int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)",
                   { 3072, 4, 1 }, { 256, 1, 1 }, 64, 8192, 0, 44 },
  [KW_FFT_CGEMM] = { "ampere_cgemm_32x32_tn",
                     { 24, 2048, 1 }, { 256, 1, 1 }, 72, 8192, 0, 38 },
  [KW_FFT_C2R] = { "void fft2d_c2r_32x32<__nv_bfloat16, false, false, 0u, false, false>(__nv_bfloat16*, float2 const*, int, int, int, int, int, int, int, int, int, float, float, cudnn::reduced_divisor, bool, __nv_bfloat16*, __nv_bfloat16*, int2, int, int)",
                   { 3072, 4, 1 }, { 256, 1, 1 }, 64, 8192, 0, 43 },
  [KW_WGRAD_IMPLICIT] = { "sm90_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn",
                          { 6, 6, 16 }, { 256, 1, 1 }, 168, 0, 197632, 9 },
  [KW_WGRAD_ALG0] = { "void cudnn::cnn::wgrad_alg0_engine<__nv_bfloat16, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, __nv_bfloat16 const*, int, __nv_bfloat16*, __nv_bfloat16 const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
                      { 6, 64, 4 }, { 128, 1, 1 }, 80, 5120, 0, 18 },
  [KW_WGRAD_ALG1] = { "void cudnn::cnn::wgrad_alg1_engine<__nv_bfloat16, 128, 6, 8, 3, 3, 5, false, true>(int, int, int, __nv_bfloat16 const*, int, __nv_bfloat16*, __nv_bfloat16 const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
                      { 6, 64, 4 }, { 128, 1, 1 }, 88, 6144, 0, 17 },
};

/* ------------------------------------------------------------------------ */
/* Copies                                                                   */

typedef enum
{
  C_H2D_PINNED,
  C_H2D_PAGEABLE,
  C_D2H_PINNED,
  C_N_COPIES
} CopyId;

static const CpGenCopySpec copy_specs[C_N_COPIES] = {
  [C_H2D_PINNED] = { "Memcpy HtoD (Pinned -> Device)", CP_GEN_COPY_H2D, "pinned", "device" },
  [C_H2D_PAGEABLE] = { "Memcpy HtoD (Pageable -> Device)", CP_GEN_COPY_H2D, "pageable", "device" },
  [C_D2H_PINNED] = { "Memcpy DtoH (Device -> Pinned)", CP_GEN_COPY_D2H, "device", "pinned" },
};

/* ------------------------------------------------------------------------ */
/* Scenarios                                                                */

typedef enum
{
  MODEL_VIT,   /* a ViT-B/16-like vision transformer */
  MODEL_MLP,   /* a deep, narrow MLP: many tiny kernels */
} Model;

typedef struct
{
  CpGenScenarioInfo info;
  Model    model;
  int      blocks;          /* transformer blocks or MLP layers */
  int      batch;
  gboolean fp32;
  gboolean single_loader;   /* num_workers=0 */
  gint64   loader_ns;       /* mean DataLoader __next__ time */
  gboolean pageable;        /* images from pageable memory, as fp32 */
  gboolean copy_stream;     /* H2D on a prefetch stream, overlapped */
  gboolean sync_stalls;     /* .item() / nonzero syncs in the loop */
  gboolean comm;            /* gradient all-reduce after backward */
  gint64   launch_ns;       /* mean cudaLaunchKernel time */
  /* Memory scenarios (0: no allocator events): what was allocated before
   * the capture (weights, optimizer state), the activations each step
   * allocates and frees, and what each step keeps for good. */
  gint64   mem_base;
  gint64   mem_act;
  gint64   mem_leak;
  /* Captures nobody tidied: taken without a profiler schedule, so there is
   * no ProfilerStep#N and an iteration starts at the DataLoader's
   * __next__, and the first iteration is the run's warm-up. */
  gboolean unmarked;
  gboolean warmup;
  /* Host time of operators and Python between them, as a multiple of the
   * other scenarios' (0: the same). */
  double   host_scale;
  /* Memory scenarios: the allocated total at successive step ends, a
   * cycle (the weights, mem_base, and what the step keeps on top). */
  const gint64 *mem_step_end;
  guint    n_mem_step_end;
} Scenario;

#define MIB(x) (G_GINT64_CONSTANT (x) << 20)

#define TRUTH_MEMORY "memory {device_type, device_id, events, peak_allocated_bytes, peak_reserved_bytes, " \
                     "capacity_bytes, step_end_allocated_bytes}"

/* memory-oscillating: what stays allocated after each step (its outputs,
 * kept for logging until the next batch replaces them) follows the
 * length of the batch's sequences, so it rises and falls by steps. */
static const gint64 oscillating_step_ends[] = {
  MIB (96), MIB (128), MIB (130), MIB (192), MIB (320), MIB (162), MIB (264), MIB (320),
};

static const Scenario scenarios[] = {
  /* GPU-bound: ~25 ms of bf16 tensor-core work per step, the host issues it
   * in ~9 ms and runs ahead until the launch queue fills; batches come from
   * worker processes and are copied from pinned memory on a prefetch stream
   * while the previous step computes. */
  { { "healthy", NULL, NULL,
      "bf16 tensor-core ViT, GPU busy all step, workers + pinned prefetch, no syncs" },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (160), FALSE, TRUE, FALSE, FALSE, US (5.5) },
  /* num_workers=0: __next__ decodes and augments in the main process for
   * ~46 ms while the GPU, done with its ~25 ms, waits (input ~57% of a step). */
  { { "input-bound", "input-bound", "dataloader-single-process",
      "DataLoader with num_workers=0 takes ~46 ms of a ~55 ms step; the GPU idles" },
    MODEL_VIT, 12, 64, FALSE, TRUE, MS (46), FALSE, FALSE, FALSE, FALSE, US (5.5) },
  /* ~2000 kernels of 2-4 us per step, each behind a 8-15 us cudaLaunchKernel:
   * the GPU is busy ~12% of the step and waits on launches the rest. */
  { { "launch-bound", "launch-bound", "host-overhead",
      "96-layer narrow MLP with single-tensor Adam: ~2000 kernels of 2-4 us per step" },
    MODEL_MLP, 96, 128, FALSE, FALSE, US (120), FALSE, FALSE, FALSE, FALSE, US (11.5) },
  /* 38.5 MB of fp32 images per step copied from pageable memory at ~6 GB/s:
   * the host blocks in cudaMemcpyAsync, the copy takes ~20% of the step. */
  { { "pageable-transfers", "pageable-memcpy", "transfer-bound",
      "38.5 MB per step copied HtoD from pageable memory (~6 ms of ~32 ms)" },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (170), TRUE, FALSE, FALSE, FALSE, US (5.5) },
  /* nonzero() routing and .item() logging in every block: the host blocks in
   * cudaStreamSynchronize while the GPU drains, then the GPU idles while the
   * host prepares the next work (~25% of each step). */
  { { "sync-stalls", "sync-stall", NULL,
      "nonzero()/.item() in every block and for logging: the GPU drains and idles ~25% of a step" },
    MODEL_VIT, 6, 64, FALSE, FALSE, US (150), FALSE, FALSE, TRUE, FALSE, US (5.5) },
  /* The healthy loop in fp32 on compute capability 9.0: cuBLAS/cuDNN SIMT
   * kernels (sgemm), no 16-bit or tensor-core kernel anywhere. */
  { { "fp32-no-tensor-cores", "no-mixed-precision", NULL,
      "fp32 ViT on an H100: every matmul is an SIMT sgemm, no tensor cores" },
    MODEL_VIT, 6, 64, TRUE, FALSE, US (160), FALSE, TRUE, FALSE, FALSE, US (5.5) },
  /* 16 ranks on 2 nodes, gradients all-reduced in 4 buckets after backward
   * (no overlap): ~12 ms of NCCL per ~38 ms step. */
  { { "comm-bound", "comm-bound", "low-comm-overlap",
      "NCCL all-reduce of 172 MB of bf16 gradients after backward, not overlapped (~32% of a step)" },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (160), FALSE, FALSE, FALSE, TRUE, US (5.5) },
  /* The healthy loop with profile_memory=True. Weights and AdamW state
   * (4 GiB) were allocated before the capture; each step's activations
   * (12 GiB in 8 blocks) come and go, and 512 MiB a step stay allocated
   * (a loss kept with its graph): allocated at step end grows by 512 MiB,
   * ~25% of the peak over 6 steps, on a device used to ~25%. */
  { { "memory-leak", "memory-leak", "memory-headroom",
      "profile_memory: 512 MiB a step stay allocated (a loss kept with its graph) on an 80 GB H100", 0, TRUTH_MEMORY },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (160), FALSE, TRUE, FALSE, FALSE, US (5.5),
    G_GINT64_CONSTANT (4) << 30, G_GINT64_CONSTANT (12) << 30, G_GINT64_CONSTANT (512) << 20 },
  /* 30 GiB of weights and state and 46 GiB of activations: the peak is
   * ~96% of the 79.2 GiB device. */
  { { "memory-near-capacity", "memory-pressure", NULL,
      "profile_memory: 30 GiB of state and 46 GiB of activations peak at ~96% of an 80 GB H100", 0, TRUTH_MEMORY },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (160), FALSE, TRUE, FALSE, FALSE, US (5.5),
    G_GINT64_CONSTANT (30) << 30, G_GINT64_CONSTANT (46) << 30, 0 },
  /* 2 GiB of state and 6 GiB of activations: ~10% of the device, so a
   * batch ~10x larger would fit by the plain ratio. */
  { { "memory-headroom", "memory-headroom", NULL,
      "profile_memory: 2 GiB of state and 6 GiB of activations use ~10% of an 80 GB H100", 0, TRUTH_MEMORY },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (160), FALSE, TRUE, FALSE, FALSE, US (5.5),
    G_GINT64_CONSTANT (2) << 30, G_GINT64_CONSTANT (6) << 30, 0 },
  /* The input-bound loop as a capture nobody tidied: no schedule, so no
   * ProfilerStep#N, and the first iteration is the run's warm-up: the CUDA
   * context (1.2 s), cuDNN's benchmark of the convolution, loading cuBLAS
   * and a first kernel launch of 1.6 s (lazy module loading), ~4.6 s in
   * all. Then, at batch 320 with an eager host ~13x slower per operator
   * than the other scenarios' (~107 ms to issue an iteration that keeps the
   * GPU busy ~116 ms), __next__ takes ~53 ms of each ~160 ms iteration and
   * the GPU idles through most of it. With --loader-workers 4 the wait is
   * the pin-memory thread's (~5 ms) and the GPU sets the pace: ~118 ms
   * iterations, but the first waits ~1.2 s more for the workers to start,
   * so the mean over all iterations gets worse. */
  { { "warmup-input-bound", "input-bound", "dataloader-single-process",
      "no ProfilerStep markers, a 4.6 s warm-up iteration, then num_workers=0 loading ~33% of ~160 ms iterations", 6,
      "iterations [{start_ns, end_ns, loading_ns, gpu_busy_ns}], warmup_iterations, steady {n, mean_ns, median_ns, "
      "loading_ns, loading_percent, gpu_busy_ns, gpu_busy_percent}; loader_workers with --loader-workers" },
    MODEL_VIT, 12, 320, FALSE, TRUE, MS (53), FALSE, FALSE, FALSE, FALSE, US (5.5), 0, 0, 0,
    TRUE, TRUE, 13.1 },
  /* The healthy loop with profile_memory=True on a small footprint:
   * weights of 96 MiB, 1 GiB of activations per step, and outputs kept
   * across steps whose size goes with the batch, so the allocated total at
   * step ends goes 96, 128, 130, 192, 320, 162, 264, 320 MiB and back to
   * 96: it rises in six steps of eight, but it is no leak. */
  { { "memory-oscillating", NULL, "memory-headroom",
      "profile_memory: allocated at step ends rises and falls (96 to 320 MiB, three cycles of 8 steps), no leak", 24,
      TRUTH_MEMORY },
    MODEL_VIT, 12, 64, FALSE, FALSE, US (160), FALSE, TRUE, FALSE, FALSE, US (5.5),
    MIB (96), G_GINT64_CONSTANT (1) << 30, 0, FALSE, FALSE, 0,
    oscillating_step_ends, G_N_ELEMENTS (oscillating_step_ends) },
};

const CpGenScenarioInfo *
cp_gen_scenarios (guint *n)
{
  static CpGenScenarioInfo infos[G_N_ELEMENTS (scenarios)];

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    infos[i] = scenarios[i].info;
  *n = G_N_ELEMENTS (scenarios);
  return infos;
}

const CpGenScenarioInfo *
cp_gen_scenario_lookup (const char *name)
{
  static CpGenScenarioInfo infos[G_N_ELEMENTS (scenarios)];

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    if (g_strcmp0 (scenarios[i].info.name, name) == 0)
      {
        infos[i] = scenarios[i].info;
        return &infos[i];
      }
  return NULL;
}

static const Scenario *
scenario_for_info (const CpGenScenarioInfo *info)
{
  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    if (g_strcmp0 (scenarios[i].info.name, info->name) == 0)
      return &scenarios[i];
  return NULL;
}

gboolean
cp_gen_scenario_loads_in_process (const CpGenScenarioInfo *info)
{
  const Scenario *sc = scenario_for_info (info);

  return sc != NULL && sc->single_loader;
}

/* ------------------------------------------------------------------------ */
/* Simulation state                                                         */

typedef struct
{
  gint64 *ring;            /* start times of the last CP_GEN_QUEUE_DEPTH launches */
  guint64 count;
} LaunchQueue;

static CpGenVariation variation = { 0, NULL, 2.0, 0 };

void
cp_gen_set_variation (const CpGenVariation *v)
{
  variation = *v;
}

struct _CpGenSim
{
  const Scenario *sc;
  Scenario        sc_varied;      /* the scenario with the variation applied */
  guint64         slowed_n;
  gint64          slowed_ns;
  guint64         rng[4];
  CpGenRunInfo    run;
  char           *trace_id;

  CpGenLane       lanes[CP_GEN_MAX_LANES];
  guint           n_lanes;
  int             main_lane, bwd_lane, compute_lane, copy_lane, nccl_lane, counter_lane;

  gint64          clock[CP_GEN_MAX_LANES];
  gint64          stream_free[CP_GEN_MAX_LANES];
  gint64          stream_dep[CP_GEN_MAX_LANES];
  LaunchQueue     queue[CP_GEN_MAX_LANES];
  GArray         *stack[CP_GEN_MAX_LANES];

  GArray         *events;
  GPtrArray      *names;
  GHashTable     *name_index;
  GHashTable     *static_index;   /* literal's address -> 1 + name id */
  GHashTable     *outer_index;    /* backward node literal -> 1 + id of its evaluate_function name */
  GPtrArray      *args;
  GHashTable     *args_index;

  guint64         next_corr;
  guint32         next_ext;
  guint32         next_ev_idx;
  guint32         next_flow;
  GArray         *fwd_flows;      /* fwdbwd ids of the forward GEMMs, in order */

  guint           steps_done;
  guint           first_step_num;
  gint64          end_ns;
  gint64          next_counter;
  gint64          prefetch_copy_end;

  /* Interned ids used on every step. */
  guint32         n_launch, n_memcpy_async, n_memset_async, n_stream_sync, n_device_sync,
                  n_event_record, n_stream_wait;
  guint16         a_qkv, a_proj, a_fc1, a_fc2, a_head, a_conv, a_bmm, a_mlp, a_nccl[4];

  /* Loops without step markers: the iteration in progress, and the
   * kernels' intervals that may still reach into it. */
  double          host_scale;
  CpGenIterationFunc iter_func;
  gpointer        iter_data;
  gboolean        iter_open;
  guint           iter_index;
  gint64          iter_start;
  gint64          iter_loading;
  GArray         *iter_kernels;   /* of gint64 pairs */

  /* The warm-up's one-off costs, each paid once. */
  gint64          worker_batch_ns; /* a worker's time for a batch (--loader-workers) */
  gboolean        context_ready;
  gboolean        cublas_ready;
  guint           n_loaded;
  guint8          loaded[K_N_SPECS];

  CpGenTruthFunc  truth_func;
  gpointer        truth_data;
  gboolean        have_range;
  gint64          range_start;
  gint64          range_end;
  gboolean        sync_pending;
  gint64          sync_start;

  GArray         *mem;            /* of CpGenMemEvent: this step's */
  gint64          mem_allocated;
  gint64          mem_reserved;
  gint64          mem_peak_allocated;
  gint64          mem_peak_reserved;
  guint64         mem_next_addr;
  guint64         mem_n;
  gint64          mem_kept;       /* memory-oscillating: kept after the last step */
  guint64         mem_kept_addr;
  GArray         *mem_step_ends;  /* of gint64 */
};

/* xoshiro256** seeded through splitmix64. */
static guint64
splitmix64 (guint64 *x)
{
  guint64 z = (*x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static inline guint64
rotl (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static guint64
rng_next (CpGenSim *s)
{
  guint64 *r = s->rng;
  guint64 result = rotl (r[1] * 5, 7) * 9;
  guint64 t = r[1] << 17;

  r[2] ^= r[0];
  r[3] ^= r[1];
  r[1] ^= r[2];
  r[0] ^= r[3];
  r[2] ^= t;
  r[3] = rotl (r[3], 45);
  return result;
}

static double
rng_unit (CpGenSim *s)
{
  return (rng_next (s) >> 11) * (1.0 / 9007199254740992.0);
}

/* base, varied uniformly by +-frac, at least 1 ns. */
static gint64
jit (CpGenSim *s,
     gint64    base,
     double    frac)
{
  gint64 v = base + (gint64) (base * frac * (2.0 * rng_unit (s) - 1.0));

  return MAX (v, 1);
}

static guint32
intern_name (CpGenSim   *s,
             const char *name)
{
  gpointer idx;

  if (g_hash_table_lookup_extended (s->name_index, name, NULL, &idx))
    return GPOINTER_TO_UINT (idx);
  g_ptr_array_add (s->names, g_strdup (name));
  g_hash_table_insert (s->name_index, g_ptr_array_index (s->names, s->names->len - 1),
                       GUINT_TO_POINTER (s->names->len - 1));
  return s->names->len - 1;
}

/* For names that are string literals or static tables: looked up by
 * address, which saves hashing long kernel names on every launch. */
static guint32
intern_static (CpGenSim   *s,
               const char *name)
{
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (s->static_index, name));

  if (id == 0)
    {
      id = intern_name (s, name) + 1;
      g_hash_table_insert (s->static_index, (gpointer) name, GUINT_TO_POINTER (id));
    }
  return id - 1;
}

static guint16
intern_args (CpGenSim   *s,
             const char *args)
{
  gpointer idx;

  if (g_hash_table_lookup_extended (s->args_index, args, NULL, &idx))
    return GPOINTER_TO_UINT (idx);
  g_ptr_array_add (s->args, g_strdup (args));
  g_hash_table_insert (s->args_index, g_ptr_array_index (s->args, s->args->len - 1),
                       GUINT_TO_POINTER (s->args->len - 1));
  g_assert (s->args->len < G_MAXUINT16);
  return s->args->len - 1;
}

static gint
add_event (CpGenSim *s,
           int       lane,
           CpGenCat  cat,
           guint32   name,
           gint64    ts,
           gint64    dur)
{
  CpGenEvent ev = { 0, };

  ev.ts = ts;
  ev.dur = dur;
  ev.partner = -1;
  ev.name = name;
  ev.cat = cat;
  ev.lane = lane;
  g_array_append_val (s->events, ev);
  if (ts + dur > s->end_ns)
    s->end_ns = ts + dur;
  return s->events->len - 1;
}

static inline CpGenEvent *
ev_at (CpGenSim *s,
       gint      i)
{
  return &g_array_index (s->events, CpGenEvent, i);
}

/* ------------------------------------------------------------------------ */
/* Ground truth                                                             */

static void
truth_flush (CpGenSim *s)
{
  if (s->have_range && s->truth_func != NULL)
    s->truth_func (s->range_start, s->range_end, s->truth_data);
  s->have_range = FALSE;
}

/* Ranges arrive roughly in order; overlapping or touching ones merge. */
static void
truth_add (CpGenSim *s,
           gint64    start,
           gint64    end)
{
  if (end <= start)
    return;
  if (s->have_range && start <= s->range_end)
    {
      s->range_start = MIN (s->range_start, start);
      s->range_end = MAX (s->range_end, end);
      return;
    }
  truth_flush (s);
  s->have_range = TRUE;
  s->range_start = start;
  s->range_end = end;
}

/* A sync stall lasts from the synchronising call until the GPU gets its
 * next piece of work. */
static void
note_gpu_activity (CpGenSim *s,
                   gint64    start)
{
  if (s->sync_pending)
    {
      truth_add (s, s->sync_start, MAX (start, s->sync_start + 1));
      s->sync_pending = FALSE;
    }
}

/* ------------------------------------------------------------------------ */
/* Host operators                                                           */

/* Time that runs at the host's pace: operators and the Python between
 * them (host_scale makes an eager model's host slower). */
static inline void
host (CpGenSim *s,
      int       lane,
      gint64    ns)
{
  s->clock[lane] += s->host_scale == 1.0 ? ns : (gint64) (ns * s->host_scale);
}

/* Time whose length is already decided: a runtime call, the DataLoader's
 * work, a library loading. */
static inline void
advance (CpGenSim *s,
         int       lane,
         gint64    ns)
{
  s->clock[lane] += ns;
}

static gint
op_begin_id (CpGenSim *s,
             int       lane,
             CpGenCat  cat,
             guint32   name,
             guint16   args)
{
  gint i = add_event (s, lane, cat, name, s->clock[lane], 0);
  CpGenEvent *ev = ev_at (s, i);

  ev->ext_id = s->next_ext++;
  ev->ev_idx = s->next_ev_idx++;
  ev->spec = args;
  g_array_append_val (s->stack[lane], i);
  host (s, lane, jit (s, US (2.2), 0.4));
  return i;
}

/* name must be a string literal. */
static gint
op_begin (CpGenSim   *s,
          int         lane,
          CpGenCat    cat,
          const char *name,
          guint16     args)
{
  return op_begin_id (s, lane, cat, intern_static (s, name), args);
}

static void
op_end (CpGenSim *s,
        int       lane)
{
  GArray *stack = s->stack[lane];
  gint i;
  CpGenEvent *ev;

  g_assert (stack->len > 0);
  i = g_array_index (stack, gint, stack->len - 1);
  g_array_set_size (stack, stack->len - 1);
  host (s, lane, jit (s, US (1.3), 0.4));
  ev = ev_at (s, i);
  ev->dur = s->clock[lane] - ev->ts;
  if (ev->ts + ev->dur > s->end_ns)
    s->end_ns = ev->ts + ev->dur;
}

/* An operator without GPU work (views, bookkeeping). */
static void
op_leaf (CpGenSim   *s,
         int         lane,
         const char *name,
         gint64      ns)
{
  op_begin (s, lane, CP_GEN_CAT_CPU_OP, name, 0);
  host (s, lane, jit (s, ns, 0.3));
  op_end (s, lane);
}

static guint32
current_ext (CpGenSim *s,
             int       lane)
{
  GArray *stack = s->stack[lane];

  if (stack->len == 0)
    return 0;
  return ev_at (s, g_array_index (stack, gint, stack->len - 1))->ext_id;
}

/* ------------------------------------------------------------------------ */
/* CUDA runtime and GPU activities                                          */

static gint64
queue_ready (CpGenSim *s,
             int       stream)
{
  LaunchQueue *q = &s->queue[stream];

  if (q->count < CP_GEN_QUEUE_DEPTH)
    return G_MININT64;
  return q->ring[q->count % CP_GEN_QUEUE_DEPTH];
}

static void
queue_push (CpGenSim *s,
            int       stream,
            gint64    start)
{
  LaunchQueue *q = &s->queue[stream];

  q->ring[q->count % CP_GEN_QUEUE_DEPTH] = start;
  q->count++;
}

static gint
runtime_call (CpGenSim *s,
              int       lane,
              guint32   name,
              guint16   cbid,
              gint64    dur)
{
  gint i = add_event (s, lane, CP_GEN_CAT_RUNTIME, name, s->clock[lane], dur);
  CpGenEvent *ev = ev_at (s, i);

  ev->cbid = cbid;
  ev->corr = s->next_corr++;
  ev->ext_id = current_ext (s, lane);
  advance (s, lane, dur);
  return i;
}

/* Queues a GPU activity for runtime call rt; returns its end. */
static gint64
gpu_activity (CpGenSim *s,
              gint      rt,
              int       stream,
              CpGenCat  cat,
              guint32   name,
              guint16   spec,
              gint64    earliest,
              gint64    dur,
              guint64   bytes)
{
  gint64 start = MAX (earliest, s->stream_free[stream]);
  gint k;
  CpGenEvent *kev, *rev;

  start = MAX (start, s->stream_dep[stream]);
  note_gpu_activity (s, start);
  k = add_event (s, stream, cat, name, start, dur);
  kev = ev_at (s, k);
  rev = ev_at (s, rt);
  kev->spec = spec;
  kev->bytes = bytes;
  kev->corr = rev->corr;
  kev->ext_id = rev->ext_id;
  kev->partner = rt;
  rev->partner = k;
  s->stream_free[stream] = start + dur;
  queue_push (s, stream, start);
  return start + dur;
}

/* The run's first iteration (scenarios with a warm-up). */
static gboolean
warming_up (CpGenSim *s)
{
  return s->sc->warmup && s->steps_done == 0;
}

/* With lazy module loading (CUDA_MODULE_LOADING=LAZY) a kernel's module is
 * loaded by its first launch, which returns only then: the very first one
 * of the run loads the bulk of the libraries' code (~1.6 s), each later
 * new kernel ~0.45 ms. Nothing to load outside the warm-up scenarios. */
#define WARMUP_FIRST_LOAD_NS MS (1600)
#define WARMUP_MODULE_NS     US (450)

static gint64
lazy_load (CpGenSim *s,
           KernelId  kid)
{
  gint64 ns;

  if (!s->sc->warmup || s->loaded[kid])
    return 0;
  ns = jit (s, s->n_loaded == 0 ? WARMUP_FIRST_LOAD_NS : WARMUP_MODULE_NS, s->n_loaded == 0 ? 0.03 : 0.3);
  s->loaded[kid] = TRUE;
  s->n_loaded++;
  return ns;
}

static gint64
launch (CpGenSim *s,
        int       lane,
        int       stream,
        KernelId  kid,
        gint64    gpu_dur)
{
  gint64 t = s->clock[lane];
  gint64 ready = queue_ready (s, stream);
  gint64 wait = ready > t ? ready - t + jit (s, US (1.5), 0.5) : 0;
  gint64 cost = jit (s, s->sc->launch_ns, 0.3);
  gint64 load = lazy_load (s, kid);
  gint rt = runtime_call (s, lane, s->n_launch, CBID_LAUNCH_KERNEL, wait + load + cost);
  /* One random draw per statement: the order of evaluation of a call's
   * arguments is unspecified, and the capture must not depend on the
   * compiler. */
  gint64 queued = jit (s, US (4), 0.3);
  gint64 dur = jit (s, gpu_dur, 0.06);

  if (variation.slow_kernel != NULL && strstr (kernel_specs[kid].name, variation.slow_kernel) != NULL)
    {
      dur = (gint64) (dur * variation.slow_factor + 0.5);
      s->slowed_n++;
      s->slowed_ns += dur;
    }

  return gpu_activity (s, rt, stream, CP_GEN_CAT_KERNEL, intern_static (s, kernel_specs[kid].name),
                       kid, t + wait + load + queued, dur, 0);
}

/* A host-to-device copy. Pinned copies are asynchronous; pageable ones
 * block the caller until the data has gone (the driver stages it through a
 * small pinned buffer that only drains once the stream reaches the copy). */
static gint64
copy_h2d (CpGenSim *s,
          int       lane,
          int       stream,
          guint64   bytes,
          gboolean  pageable)
{
  gint64 t = s->clock[lane];
  double gbps = pageable ? 6.2 : 24.5;   /* GB/s == bytes per ns */
  gint64 dur = (gint64) (bytes / (gbps * (0.97 + 0.06 * rng_unit (s)))) + US (1.8);
  gint rt = runtime_call (s, lane, s->n_memcpy_async, CBID_MEMCPY_ASYNC, 0);
  gint64 end;

  s->clock[lane] = t;
  end = gpu_activity (s, rt, stream, CP_GEN_CAT_MEMCPY,
                      intern_static (s, copy_specs[pageable ? C_H2D_PAGEABLE : C_H2D_PINNED].name),
                      pageable ? C_H2D_PAGEABLE : C_H2D_PINNED,
                      t + jit (s, US (6), 0.3), dur, bytes);
  if (pageable)
    ev_at (s, rt)->dur = end + jit (s, US (4), 0.3) - t;
  else
    ev_at (s, rt)->dur = jit (s, US (8.5), 0.3);
  advance (s, lane, ev_at (s, rt)->dur);
  s->end_ns = MAX (s->end_ns, s->clock[lane]);
  if (pageable)
    truth_add (s, t, s->clock[lane]);
  return end;
}

/* A device-to-host copy into pinned memory (what .item() does). */
static gint64
copy_d2h (CpGenSim *s,
          int       lane,
          int       stream,
          guint64   bytes)
{
  gint64 t = s->clock[lane];
  gint rt = runtime_call (s, lane, s->n_memcpy_async, CBID_MEMCPY_ASYNC, jit (s, US (7), 0.3));
  gint64 queued = jit (s, US (5), 0.3);
  gint64 dur = jit (s, US (1.6), 0.2);

  return gpu_activity (s, rt, stream, CP_GEN_CAT_MEMCPY, intern_static (s, copy_specs[C_D2H_PINNED].name),
                       C_D2H_PINNED, t + queued, dur, bytes);
}

static void
memset_async (CpGenSim *s,
              int       lane,
              int       stream,
              guint64   bytes)
{
  gint64 t = s->clock[lane];
  gint rt = runtime_call (s, lane, s->n_memset_async, CBID_MEMSET_ASYNC, jit (s, US (5), 0.3));
  gint64 queued = jit (s, US (4), 0.3);
  gint64 dur = jit (s, US (1.5), 0.2);

  gpu_activity (s, rt, stream, CP_GEN_CAT_MEMSET, intern_static (s, "Memset (Device)"), 0,
                t + queued, dur + bytes / 1500, bytes);
}

/* Blocks the host in the call `name` until the stream has drained (or,
 * for an event, the work recorded before it: the last on the stream). */
static void
wait_for_stream (CpGenSim *s,
                 int       lane,
                 int       stream,
                 guint32   name,
                 guint16   cbid,
                 gint64    call_ns)
{
  gint64 t = s->clock[lane];
  gint64 call = jit (s, call_ns, 0.3);
  gint64 tail = jit (s, US (6), 0.4);
  gint64 end = MAX (t + call, s->stream_free[stream] + tail);
  gint rt = runtime_call (s, lane, name, cbid, end - t);

  ev_at (s, rt)->flags |= CP_GEN_EVF_SYNC;
}

static void
stream_sync (CpGenSim *s,
             int       lane,
             int       stream)
{
  wait_for_stream (s, lane, stream, s->n_stream_sync, CBID_STREAM_SYNCHRONIZE, US (2.5));
}

static void
device_sync (CpGenSim *s,
             int       lane)
{
  gint64 t = s->clock[lane];
  gint64 drained = 0;
  gint64 end;
  gint rt;

  for (guint i = 0; i < s->n_lanes; i++)
    if (s->lanes[i].kind == CP_GEN_LANE_STREAM)
      drained = MAX (drained, s->stream_free[i]);
  {
    gint64 call = jit (s, US (3), 0.3);
    gint64 tail = jit (s, US (7), 0.4);

    end = MAX (t + call, drained + tail);
  }
  rt = runtime_call (s, lane, s->n_device_sync, CBID_DEVICE_SYNCHRONIZE, end - t);
  ev_at (s, rt)->flags |= CP_GEN_EVF_SYNC;
}

/* cudaEventRecord on `from` then cudaStreamWaitEvent on `to`: work queued on
 * `to` from now on starts after what `from` holds so far. */
static void
stream_wait (CpGenSim *s,
             int       lane,
             int       from,
             int       to)
{
  runtime_call (s, lane, s->n_event_record, CBID_EVENT_RECORD, jit (s, US (3), 0.3));
  host (s, lane, jit (s, US (1), 0.3));
  runtime_call (s, lane, s->n_stream_wait, CBID_STREAM_WAIT_EVENT, jit (s, US (2.5), 0.3));
  s->stream_dep[to] = MAX (s->stream_dep[to], s->stream_free[from]);
}

/* ------------------------------------------------------------------------ */
/* What the run's first iteration pays once                                 */

/* The first allocation on the device creates the CUDA context (PyTorch's
 * lazy initialisation: a cudaFree of nothing, ~1.2 s), then the caching
 * allocator maps its first segment. Later allocations are plain operators. */
#define WARMUP_CONTEXT_NS MS (1200)

static void
empty_strided (CpGenSim *s,
               int       lane,
               gint64    ns)
{
  if (!warming_up (s) || s->context_ready)
    {
      op_leaf (s, lane, "aten::empty_strided", ns);
      return;
    }
  op_begin (s, lane, CP_GEN_CAT_CPU_OP, "aten::empty_strided", 0);
  runtime_call (s, lane, intern_static (s, "cudaFree"), CBID_FREE, jit (s, WARMUP_CONTEXT_NS, 0.03));
  host (s, lane, jit (s, US (20), 0.3));
  runtime_call (s, lane, intern_static (s, "cudaMalloc"), CBID_MALLOC, jit (s, MS (2.1), 0.2));
  op_end (s, lane);
  s->context_ready = TRUE;
}

/* The first matmul loads cuBLAS's libraries and creates the handle (host
 * time inside aten::addmm, no runtime call), then sizes its workspace. */
#define WARMUP_CUBLAS_NS MS (320)

static void
cublas_load (CpGenSim *s,
             int       lane)
{
  if (!warming_up (s) || s->cublas_ready)
    return;
  advance (s, lane, jit (s, WARMUP_CUBLAS_NS, 0.05));
  runtime_call (s, lane, intern_static (s, "cudaMalloc"), CBID_MALLOC, jit (s, MS (1.2), 0.2));
  s->cublas_ready = TRUE;
}

/* cuDNN's benchmark (torch.backends.cudnn.benchmark=True): the first call
 * of a convolution with new shapes allocates a workspace for the hungriest
 * algorithm, times every algorithm that applies, each run three times between
 * two events the host waits for, and keeps the fastest. For the 16x16,
 * stride 16 patch embedding at batch 256 the FFT algorithms run for tens
 * of ms: the long benchmark kernels of a first iteration. */
typedef struct
{
  guint    n;
  KernelId kernels[3];
  double   ms[3];
} Algorithm;

static const Algorithm fprop_algorithms[] = {
  { 1, { KW_FPROP_IMPLICIT }, { 0.24 } },
  { 1, { KW_FPROP_PRECOMP }, { 0.52 } },
  { 2, { KW_IM2COL, KW_FPROP_GEMM }, { 4.1, 1.6 } },
  { 3, { KW_FFT_R2C, KW_FFT_CGEMM, KW_FFT_C2R }, { 21, 34, 19 } },
  { 3, { KW_FFT_R2C, KW_FFT_CGEMM, KW_FFT_C2R }, { 44, 61, 43 } },
};

static const Algorithm wgrad_algorithms[] = {
  { 1, { KW_WGRAD_IMPLICIT }, { 0.31 } },
  { 1, { KW_WGRAD_ALG0 }, { 9.5 } },
  { 1, { KW_WGRAD_ALG1 }, { 6.2 } },
  { 3, { KW_FFT_R2C, KW_FFT_CGEMM, KW_FFT_C2R }, { 38, 95, 41 } },
};

static void
cudnn_benchmark (CpGenSim        *s,
                 int              lane,
                 const Algorithm *algorithms,
                 guint            n_algorithms)
{
  guint32 sync = intern_static (s, "cudaEventSynchronize");

  if (!warming_up (s))
    return;
  runtime_call (s, lane, intern_static (s, "cudaMalloc"), CBID_MALLOC, jit (s, MS (3.2), 0.2));
  for (guint a = 0; a < n_algorithms; a++)
    for (int run = 0; run < 3; run++)
      {
        runtime_call (s, lane, s->n_event_record, CBID_EVENT_RECORD, jit (s, US (3), 0.3));
        for (guint k = 0; k < algorithms[a].n; k++)
          launch (s, lane, s->compute_lane, algorithms[a].kernels[k], MS (algorithms[a].ms[k]));
        runtime_call (s, lane, s->n_event_record, CBID_EVENT_RECORD, jit (s, US (3), 0.3));
        wait_for_stream (s, lane, s->compute_lane, sync, CBID_EVENT_SYNCHRONIZE, US (2));
        host (s, lane, jit (s, US (25), 0.3));
      }
}

/* ------------------------------------------------------------------------ */
/* The vision transformer                                                   */

#define VIT_TOKENS 197
#define VIT_HIDDEN 768
#define VIT_MLP 3072

typedef enum { LIN_QKV, LIN_PROJ, LIN_FC1, LIN_FC2, LIN_HEAD } LinearKind;

/* GPU time of the bf16 model at batch 64, ns. */
static const gint64 linear_fwd_ns[] = { US (110), US (42), US (142), US (138), US (6) };

static double
batch_scale (CpGenSim *s)
{
  return s->sc->batch / 64.0;
}

/* fp32 SIMT GEMMs run ~7.5x slower than bf16 tensor-core ones. */
static gint64
gemm_ns (CpGenSim *s,
         gint64    bf16_ns)
{
  gint64 ns = (gint64) (bf16_ns * batch_scale (s));

  return s->sc->fp32 ? ns * 15 / 2 : ns;
}

/* Memory-bound kernels move twice the bytes in fp32. */
static gint64
mem_ns (CpGenSim *s,
        gint64    bf16_ns)
{
  gint64 ns = (gint64) (bf16_ns * batch_scale (s));

  return s->sc->fp32 ? ns * 2 : ns;
}

static guint16
linear_args (CpGenSim  *s,
             LinearKind kind)
{
  switch (kind)
    {
    case LIN_QKV: return s->a_qkv;
    case LIN_PROJ: return s->a_proj;
    case LIN_FC1: return s->a_fc1;
    case LIN_FC2: return s->a_fc2;
    case LIN_HEAD: return s->a_head;
    default: g_assert_not_reached ();
    }
}

static void
vit_linear (CpGenSim  *s,
            LinearKind kind)
{
  int m = s->main_lane;
  gint addmm;
  guint32 flow = ++s->next_flow;

  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::linear", linear_args (s, kind));
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::t", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::transpose", 0);
  op_leaf (s, m, "aten::as_strided", US (1.2));
  op_end (s, m);
  op_end (s, m);
  addmm = op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::addmm", linear_args (s, kind));
  ev_at (s, addmm)->flow_out = flow;
  g_array_append_val (s->fwd_flows, flow);
  cublas_load (s, m);
  host (s, m, jit (s, US (4), 0.3));
  launch (s, m, s->compute_lane,
          kind == LIN_HEAD ? (s->sc->fp32 ? K32_GEMM_SMALL : K_GEMM_SMALL)
                           : (s->sc->fp32 ? K32_GEMM_TN : K_GEMM_FWD),
          gemm_ns (s, linear_fwd_ns[kind]));
  op_end (s, m);
  op_end (s, m);
}

static void
vit_layer_norm (CpGenSim *s)
{
  int m = s->main_lane;

  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::layer_norm", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::native_layer_norm", 0);
  op_leaf (s, m, "aten::empty", US (1.5));
  op_leaf (s, m, "aten::empty", US (1.2));
  launch (s, m, s->compute_lane, s->sc->fp32 ? K32_LN_FWD : K_LN_FWD, mem_ns (s, US (27)));
  op_end (s, m);
  op_end (s, m);
}

static void
vit_elementwise (CpGenSim   *s,
                 const char *op,
                 KernelId    kid,
                 gint64      bf16_ns)
{
  int m = s->main_lane;

  op_begin (s, m, CP_GEN_CAT_CPU_OP, op, 0);
  host (s, m, jit (s, US (3), 0.3));
  launch (s, m, s->compute_lane, kid, mem_ns (s, bf16_ns));
  op_end (s, m);
}

static void
vit_attention (CpGenSim *s)
{
  int m = s->main_lane;

  op_leaf (s, m, "aten::view", US (2));
  op_leaf (s, m, "aten::permute", US (2.5));
  op_leaf (s, m, "aten::unbind", US (4));
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::scaled_dot_product_attention", 0);
  if (!s->sc->fp32)
    {
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_scaled_dot_product_flash_attention", 0);
      op_leaf (s, m, "aten::transpose", US (1.5));
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_flash_attention_forward", 0);
      op_leaf (s, m, "aten::empty", US (1.4));
      op_leaf (s, m, "aten::empty", US (1.2));
      launch (s, m, s->compute_lane, K_FLASH_FWD, mem_ns (s, US (46)));
      op_end (s, m);
      op_end (s, m);
    }
  else
    {
      /* No flash attention in fp32: the math path with two batched sgemms. */
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_scaled_dot_product_attention_math", 0);
      op_leaf (s, m, "aten::mul", US (6));
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::matmul", 0);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::bmm", s->a_bmm);
      launch (s, m, s->compute_lane, K32_BMM_NT, (gint64) (US (80) * batch_scale (s)));
      op_end (s, m);
      op_end (s, m);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_softmax", 0);
      launch (s, m, s->compute_lane, K32_SOFTMAX, (gint64) (US (92) * batch_scale (s)));
      op_end (s, m);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::matmul", 0);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::bmm", s->a_bmm);
      launch (s, m, s->compute_lane, K32_BMM, (gint64) (US (80) * batch_scale (s)));
      op_end (s, m);
      op_end (s, m);
      op_end (s, m);
    }
  op_end (s, m);
  op_leaf (s, m, "aten::transpose", US (1.5));
  op_leaf (s, m, "aten::reshape", US (3));
}

/* A Python-side .item(): copies one value back and waits for it. */
static void
item_sync (CpGenSim   *s,
           const char *what,
           KernelId    before,
           gint64      python_after_ns)
{
  int m = s->main_lane;
  gint op;

  if (what != NULL)
    {
      op_begin (s, m, CP_GEN_CAT_CPU_OP, what, 0);
      launch (s, m, s->compute_lane, before, US (3));
      op_end (s, m);
    }
  op = op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::item", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_local_scalar_dense", 0);
  copy_d2h (s, m, s->compute_lane, 4);
  stream_sync (s, m, s->compute_lane);
  s->sync_pending = TRUE;
  s->sync_start = ev_at (s, op)->ts;
  op_end (s, m);
  op_end (s, m);
  host (s, m, jit (s, python_after_ns, 0.25));
}

/* MoE-style token routing: the expert capacity is read back with .item()
 * and the host plans the dispatch before any more work reaches the GPU. */
static void
vit_route_tokens (CpGenSim *s)
{
  int m = s->main_lane;

  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::topk", 0);
  launch (s, m, s->compute_lane, K_TOPK, US (9));
  op_end (s, m);
  item_sync (s, "aten::max", K_MAX, US (260));
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::index", 0);
  op_leaf (s, m, "aten::empty", US (1.5));
  launch (s, m, s->compute_lane, K_INDEX, US (12));
  op_end (s, m);
}

static void
vit_block_forward (CpGenSim *s)
{
  int m = s->main_lane;
  KernelId add = s->sc->fp32 ? K32_ADD : K_ADD;

  vit_layer_norm (s);
  vit_linear (s, LIN_QKV);
  host (s, m, jit (s, US (5), 0.4));
  vit_attention (s);
  vit_linear (s, LIN_PROJ);
  vit_elementwise (s, "aten::add", add, US (19));
  if (s->sc->sync_stalls)
    vit_route_tokens (s);
  host (s, m, jit (s, US (6), 0.4));
  vit_layer_norm (s);
  vit_linear (s, LIN_FC1);
  vit_elementwise (s, "aten::gelu", s->sc->fp32 ? K32_GELU : K_GELU, US (48));
  vit_linear (s, LIN_FC2);
  vit_elementwise (s, "aten::add", add, US (19));
  if (s->sc->sync_stalls)
    vit_route_tokens (s);
  host (s, m, jit (s, US (8), 0.4));
}

/* Backward operators run on the autograd engine's device thread. */
static void
bwd_begin (CpGenSim   *s,
           const char *node,
           guint32     flow_in)
{
  int a = s->bwd_lane;
  guint outer = GPOINTER_TO_UINT (g_hash_table_lookup (s->outer_index, node));
  gint inner;

  if (outer == 0)
    {
      g_autofree char *name = g_strconcat ("autograd::engine::evaluate_function: ", node, NULL);

      outer = intern_name (s, name) + 1;
      g_hash_table_insert (s->outer_index, (gpointer) node, GUINT_TO_POINTER (outer));
    }
  op_begin_id (s, a, CP_GEN_CAT_CPU_OP, outer - 1, 0);
  inner = op_begin (s, a, CP_GEN_CAT_CPU_OP, node, 0);
  ev_at (s, inner)->flow_in = flow_in;
}

static void
bwd_end (CpGenSim *s)
{
  op_end (s, s->bwd_lane);
  op_end (s, s->bwd_lane);
}

static void
accumulate_grad (CpGenSim *s)
{
  int a = s->bwd_lane;

  op_begin (s, a, CP_GEN_CAT_CPU_OP, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 0);
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "torch::autograd::AccumulateGrad", 0);
  op_leaf (s, a, "aten::detach", US (2.5));
  op_end (s, a);
  op_end (s, a);
}

static guint32
pop_fwd_flow (CpGenSim *s)
{
  guint32 id;

  if (s->fwd_flows->len == 0)
    return 0;
  id = g_array_index (s->fwd_flows, guint32, s->fwd_flows->len - 1);
  g_array_set_size (s->fwd_flows, s->fwd_flows->len - 1);
  return id;
}

static void
vit_linear_backward (CpGenSim  *s,
                     LinearKind kind)
{
  int a = s->bwd_lane;
  gint64 ns = gemm_ns (s, linear_fwd_ns[kind]);
  gboolean f = s->sc->fp32;

  bwd_begin (s, "AddmmBackward0", pop_fwd_flow (s));
  op_leaf (s, a, "aten::t", US (3));
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::mm", linear_args (s, kind));
  launch (s, a, s->compute_lane, f ? K32_GEMM_NN : K_GEMM_DGRAD, ns * 21 / 20);
  op_end (s, a);
  op_leaf (s, a, "aten::t", US (2.5));
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::mm", linear_args (s, kind));
  launch (s, a, s->compute_lane, f ? K32_GEMM_NT : K_GEMM_WGRAD, ns * 11 / 10);
  op_end (s, a);
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::sum", 0);
  launch (s, a, s->compute_lane, f ? K32_BIAS_SUM : K_BIAS_SUM, mem_ns (s, US (14)));
  op_end (s, a);
  bwd_end (s);
  accumulate_grad (s);
  accumulate_grad (s);
}

static void
vit_simple_backward (CpGenSim   *s,
                     const char *node,
                     const char *op,
                     KernelId    kid,
                     gint64      ns)
{
  bwd_begin (s, node, 0);
  op_begin (s, s->bwd_lane, CP_GEN_CAT_CPU_OP, op, 0);
  launch (s, s->bwd_lane, s->compute_lane, kid, ns);
  op_end (s, s->bwd_lane);
  bwd_end (s);
}

static void
vit_layer_norm_backward (CpGenSim *s)
{
  int a = s->bwd_lane;
  gboolean f = s->sc->fp32;

  bwd_begin (s, "NativeLayerNormBackward0", 0);
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::native_layer_norm_backward", 0);
  launch (s, a, s->compute_lane, f ? K32_LN_BWD_INPUT : K_LN_BWD_INPUT, mem_ns (s, US (31)));
  launch (s, a, s->compute_lane, f ? K32_LN_BWD_GAMMA : K_LN_BWD_GAMMA, mem_ns (s, US (21)));
  op_end (s, a);
  bwd_end (s);
  accumulate_grad (s);
  accumulate_grad (s);
}

static void
vit_attention_backward (CpGenSim *s)
{
  int a = s->bwd_lane;
  double bs = batch_scale (s);

  if (!s->sc->fp32)
    {
      bwd_begin (s, "ScaledDotProductFlashAttentionBackward0", 0);
      op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::_scaled_dot_product_flash_attention_backward", 0);
      op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::_flash_attention_backward", 0);
      op_leaf (s, a, "aten::empty_like", US (2));
      op_leaf (s, a, "aten::zeros", US (4));
      launch (s, a, s->compute_lane, K_FLASH_BWD_DOT, (gint64) (US (9) * bs));
      launch (s, a, s->compute_lane, K_FLASH_BWD, (gint64) (US (98) * bs));
      launch (s, a, s->compute_lane, K_FLASH_BWD_CONVERT, (gint64) (US (7) * bs));
      op_end (s, a);
      op_end (s, a);
      bwd_end (s);
    }
  else
    {
      bwd_begin (s, "BmmBackward0", 0);
      op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::bmm", s->a_bmm);
      launch (s, a, s->compute_lane, K32_BMM_NT, (gint64) (US (80) * bs));
      op_end (s, a);
      op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::bmm", s->a_bmm);
      launch (s, a, s->compute_lane, K32_BMM, (gint64) (US (82) * bs));
      op_end (s, a);
      bwd_end (s);
      vit_simple_backward (s, "SoftmaxBackward0", "aten::_softmax_backward_data", K32_SOFTMAX_BWD,
                           (gint64) (US (118) * bs));
      bwd_begin (s, "BmmBackward0", 0);
      op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::bmm", s->a_bmm);
      launch (s, a, s->compute_lane, K32_BMM_NT, (gint64) (US (80) * bs));
      op_end (s, a);
      op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::bmm", s->a_bmm);
      launch (s, a, s->compute_lane, K32_BMM, (gint64) (US (82) * bs));
      op_end (s, a);
      bwd_end (s);
    }
}

static void
vit_block_backward (CpGenSim *s)
{
  int a = s->bwd_lane;

  bwd_begin (s, "AddBackward0", 0);
  bwd_end (s);
  vit_linear_backward (s, LIN_FC2);
  vit_simple_backward (s, "GeluBackward0", "aten::gelu_backward",
                       s->sc->fp32 ? K32_GELU_BWD : K_GELU_BWD, mem_ns (s, US (64)));
  vit_linear_backward (s, LIN_FC1);
  vit_layer_norm_backward (s);
  host (s, a, jit (s, US (4), 0.4));
  bwd_begin (s, "AddBackward0", 0);
  bwd_end (s);
  vit_linear_backward (s, LIN_PROJ);
  bwd_begin (s, "ViewBackward0", 0);
  op_leaf (s, a, "aten::reshape", US (3));
  bwd_end (s);
  vit_attention_backward (s);
  bwd_begin (s, "UnbindBackward0", 0);
  op_leaf (s, a, "aten::stack", US (9));
  bwd_end (s);
  vit_linear_backward (s, LIN_QKV);
  vit_layer_norm_backward (s);
  host (s, a, jit (s, US (5), 0.4));
}

/* --loader-workers: the first batch waits for the workers to start (each
 * a process that imports torch and opens the dataset, started one after
 * the other) and for one of them to decode it. */
#define WORKER_START_NS MS (1000)
#define WORKER_SPAWN_NS MS (40)

static void
data_loader (CpGenSim *s)
{
  int m = s->main_lane;
  const Scenario *sc = s->sc;
  /* The loader's time is its own, whatever the model's host pace. */
  double scale = s->host_scale;

  s->host_scale = 1.0;
  if (sc->single_loader)
    {
      op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION,
                "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0);
      /* Decoding and augmenting the batch in Python, then collating and
       * pinning it: only the last part shows up as operators. */
      for (int i = 0; i < 8; i++)
        {
          host (s, m, jit (s, sc->loader_ns / 9, 0.15));
          op_leaf (s, m, "aten::to", US (35));
        }
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::stack", 0);
      op_leaf (s, m, "aten::cat", sc->loader_ns / 20);
      op_end (s, m);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::pin_memory", 0);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_pin_memory", 0);
      op_leaf (s, m, "aten::empty", US (40));
      op_leaf (s, m, "aten::copy_", sc->loader_ns / 30);
      op_end (s, m);
      op_end (s, m);
      op_end (s, m);
    }
  else
    {
      op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION,
                "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0);
      if (warming_up (s) && variation.loader_workers > 0)
        {
          gint64 start = jit (s, WORKER_START_NS + variation.loader_workers * WORKER_SPAWN_NS, 0.05);

          advance (s, m, start + jit (s, s->worker_batch_ns, 0.15));
        }
      else
        host (s, m, jit (s, sc->loader_ns, 0.3));
      op_end (s, m);
    }
  s->host_scale = scale;
}

static void
upload_batch (CpGenSim *s)
{
  int m = s->main_lane;
  const Scenario *sc = s->sc;
  guint64 pixels = (guint64) sc->batch * 3 * 224 * 224;
  int stream = sc->copy_stream ? s->copy_lane : s->compute_lane;

  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::to", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_to_copy", 0);
  empty_strided (s, m, US (3));
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::copy_", 0);
  copy_h2d (s, m, stream, sc->pageable ? pixels * 4 : pixels, sc->pageable);
  op_end (s, m);
  op_end (s, m);
  op_end (s, m);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::to", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_to_copy", 0);
  op_leaf (s, m, "aten::empty_strided", US (2.5));
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::copy_", 0);
  copy_h2d (s, m, stream, (guint64) sc->batch * 8, sc->pageable);
  op_end (s, m);
  op_end (s, m);
  op_end (s, m);
}

static void
foreach_op (CpGenSim   *s,
            const char *name,
            KernelId    kid,
            int         kernels,
            gint64      ns)
{
  int m = s->main_lane;

  op_begin (s, m, CP_GEN_CAT_CPU_OP, name, 0);
  host (s, m, jit (s, US (12), 0.3));
  for (int i = 0; i < kernels; i++)
    {
      launch (s, m, s->compute_lane, kid, ns);
      host (s, m, jit (s, US (2), 0.3));
    }
  op_end (s, m);
}

static void
all_reduce_gradients (CpGenSim *s)
{
  int m = s->main_lane;
  /* 86M bf16 parameters in 4 buckets on 16 ranks over ~28 GB/s links. */
  static const gint64 bucket_ns[4] = { MS (3.4), MS (3.4), MS (3.4), MS (1.85) };

  stream_wait (s, m, s->compute_lane, s->nccl_lane);
  for (int b = 0; b < 4; b++)
    {
      gint op = op_begin (s, m, CP_GEN_CAT_CPU_OP, "nccl:all_reduce", s->a_nccl[b]);
      gint64 end;

      op_begin (s, m, CP_GEN_CAT_CPU_OP, "record_param_comms", s->a_nccl[b]);
      host (s, m, jit (s, US (18), 0.3));
      end = launch (s, m, s->nccl_lane, K_NCCL_ALLREDUCE, bucket_ns[b]);
      op_end (s, m);
      op_end (s, m);
      truth_add (s, ev_at (s, op)->ts, end);
      host (s, m, jit (s, US (9), 0.3));
    }
  stream_wait (s, m, s->nccl_lane, s->compute_lane);
}

static void
vit_step (CpGenSim *s)
{
  int m = s->main_lane;
  int a = s->bwd_lane;
  const Scenario *sc = s->sc;
  gboolean f = sc->fp32;
  gint loader;

  /* Without a profiler schedule there is no ProfilerStep#N: the iteration
   * starts with the DataLoader. */
  if (!sc->unmarked)
    {
      g_autofree char *step_name = g_strdup_printf ("ProfilerStep#%u", s->first_step_num + s->steps_done);
      gint step = op_begin_id (s, m, CP_GEN_CAT_USER_ANNOTATION, intern_name (s, step_name), 0);

      ev_at (s, step)->flags |= CP_GEN_EVF_STEP;
      ev_at (s, step)->step_num = s->first_step_num + s->steps_done;
      host (s, m, jit (s, US (12), 0.3));
    }

  loader = s->events->len;
  data_loader (s);
  if (sc->single_loader || variation.loader_ns > 0 || variation.loader_workers > 0)
    truth_add (s, ev_at (s, loader)->ts, ev_at (s, loader)->ts + ev_at (s, loader)->dur);
  if (sc->unmarked)
    {
      s->iter_start = ev_at (s, loader)->ts;
      s->iter_loading = ev_at (s, loader)->dur;
    }
  host (s, m, jit (s, US (10), 0.3));

  if (sc->copy_stream)
    {
      /* The batch for this step was prefetched during the previous one; the
       * copy of the next batch overlaps this step's compute. */
      s->stream_dep[s->compute_lane] = MAX (s->stream_dep[s->compute_lane], s->prefetch_copy_end);
      upload_batch (s);
      s->prefetch_copy_end = s->stream_free[s->copy_lane];
      runtime_call (s, m, s->n_event_record, CBID_EVENT_RECORD, jit (s, US (3), 0.3));
    }
  else
    upload_batch (s);
  host (s, m, jit (s, US (20), 0.3));

  /* Forward. */
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::conv2d", s->a_conv);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::convolution", s->a_conv);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_convolution", s->a_conv);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::cudnn_convolution", s->a_conv);
  host (s, m, jit (s, US (14), 0.3));
  cudnn_benchmark (s, m, fprop_algorithms, G_N_ELEMENTS (fprop_algorithms));
  launch (s, m, s->compute_lane, f ? K32_CONV : K_CONV, gemm_ns (s, US (60)));
  op_end (s, m);
  op_end (s, m);
  op_end (s, m);
  op_end (s, m);
  op_leaf (s, m, "aten::flatten", US (4));
  op_leaf (s, m, "aten::transpose", US (2));
  op_leaf (s, m, "aten::cat", US (9));
  vit_elementwise (s, "aten::add", f ? K32_ADD : K_ADD, US (19));
  for (int b = 0; b < sc->blocks; b++)
    vit_block_forward (s);
  vit_layer_norm (s);
  op_leaf (s, m, "aten::select", US (3));
  vit_linear (s, LIN_HEAD);

  /* Loss. */
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::cross_entropy_loss", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::log_softmax", 0);
  launch (s, m, s->compute_lane, K_LOG_SOFTMAX, US (5));
  op_end (s, m);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::nll_loss_nd", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::nll_loss_forward", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::zeros", 0);
  op_leaf (s, m, "aten::empty", US (1.5));
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::zero_", 0);
  memset_async (s, m, s->compute_lane, 4);
  op_end (s, m);
  op_end (s, m);
  launch (s, m, s->compute_lane, K_NLL, US (4));
  op_end (s, m);
  op_end (s, m);
  op_end (s, m);
  if (sc->sync_stalls)
    {
      /* loss.item() for the progress bar, then the running accuracy. */
      item_sync (s, NULL, K_FILL, US (420));
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::argmax", 0);
      launch (s, m, s->compute_lane, K_SUM_ALL, US (4));
      op_end (s, m);
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::eq", 0);
      launch (s, m, s->compute_lane, K_EQ, US (3));
      op_end (s, m);
      item_sync (s, "aten::sum", K_SUM_ALL, US (310));
    }

  /* Backward on the autograd thread; the main thread waits for it. */
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::ones_like", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::fill_", 0);
  launch (s, m, s->compute_lane, K_FILL, US (2));
  op_end (s, m);
  op_end (s, m);
  {
    gint64 gap = jit (s, US (18), 0.3);

    s->clock[a] = MAX (s->clock[a], s->clock[m] + gap);
  }
  bwd_begin (s, "NllLossBackward0", 0);
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::nll_loss_backward", 0);
  launch (s, a, s->compute_lane, K_NLL_BWD, US (4));
  op_end (s, a);
  bwd_end (s);
  vit_simple_backward (s, "LogSoftmaxBackward0", "aten::_log_softmax_backward_data", K_LOG_SOFTMAX_BWD, US (5));
  vit_linear_backward (s, LIN_HEAD);
  vit_layer_norm_backward (s);
  for (int b = 0; b < sc->blocks; b++)
    vit_block_backward (s);
  bwd_begin (s, "ConvolutionBackward0", 0);
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::convolution_backward", 0);
  cudnn_benchmark (s, a, wgrad_algorithms, G_N_ELEMENTS (wgrad_algorithms));
  launch (s, a, s->compute_lane, f ? K32_CONV : K_CONV, gemm_ns (s, US (64)));
  op_end (s, a);
  bwd_end (s);
  g_array_set_size (s->fwd_flows, 0);
  {
    gint64 gap = jit (s, US (22), 0.3);

    s->clock[m] = MAX (s->clock[m], s->clock[a] + gap);
  }

  if (sc->comm)
    all_reduce_gradients (s);

  if (sc->sync_stalls)
    {
      /* clip_grad_norm_ and logging the norm. */
      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_foreach_norm", 0);
      launch (s, m, s->compute_lane, K_NORM, US (35));
      op_end (s, m);
      item_sync (s, "aten::linalg_vector_norm", K_NORM, US (240));
    }

  /* AdamW, foreach implementation: 9 list ops over ~150 tensors. */
  op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION, "Optimizer.step#AdamW.step", 0);
  host (s, m, jit (s, US (40), 0.3));
  foreach_op (s, "aten::_foreach_add_", K_FOREACH_SCALAR, 4, US (38));
  foreach_op (s, "aten::_foreach_mul_", K_FOREACH_SCALAR, 4, US (44));
  foreach_op (s, "aten::_foreach_lerp_", K_FOREACH_LIST, 4, US (52));
  foreach_op (s, "aten::_foreach_mul_", K_FOREACH_SCALAR, 4, US (44));
  foreach_op (s, "aten::_foreach_addcmul_", K_FOREACH_POINTWISE, 4, US (58));
  foreach_op (s, "aten::_foreach_sqrt", K_FOREACH_UNARY, 4, US (44));
  foreach_op (s, "aten::_foreach_div_", K_FOREACH_SCALAR, 4, US (44));
  foreach_op (s, "aten::_foreach_add_", K_FOREACH_SCALAR, 4, US (44));
  foreach_op (s, "aten::_foreach_addcdiv_", K_FOREACH_POINTWISE, 4, US (60));
  op_end (s, m);
  op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION, "Optimizer.zero_grad#AdamW.zero_grad", 0);
  host (s, m, jit (s, US (55), 0.3));
  op_end (s, m);
  if (sc->sync_stalls)
    {
      /* Timing the step. */
      gint64 t = s->clock[m];

      device_sync (s, m);
      s->sync_pending = TRUE;
      s->sync_start = t;
      host (s, m, jit (s, US (90), 0.3));
    }
  if (sc->unmarked)
    /* The loop's own Python until the next batch is asked for. */
    host (s, m, jit (s, US (25), 0.3));
  else
    op_end (s, m);
}

/* ------------------------------------------------------------------------ */
/* The narrow MLP (launch-bound)                                            */

static void
mlp_launch_op (CpGenSim   *s,
               int         lane,
               const char *name,
               guint16     args,
               KernelId    kid,
               gint64      ns)
{
  op_begin (s, lane, CP_GEN_CAT_CPU_OP, name, args);
  launch (s, lane, s->compute_lane, kid, ns);
  op_end (s, lane);
}

static void
mlp_step (CpGenSim *s)
{
  int m = s->main_lane;
  int a = s->bwd_lane;
  int layers = s->sc->blocks;
  g_autofree char *step_name = g_strdup_printf ("ProfilerStep#%u", s->first_step_num + s->steps_done);
  gint step;

  step = op_begin_id (s, m, CP_GEN_CAT_USER_ANNOTATION, intern_name (s, step_name), 0);
  ev_at (s, step)->flags |= CP_GEN_EVF_STEP;
  ev_at (s, step)->step_num = s->first_step_num + s->steps_done;
  host (s, m, jit (s, US (10), 0.3));
  op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION,
            "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0);
  host (s, m, jit (s, s->sc->loader_ns, 0.3));
  op_end (s, m);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::to", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::_to_copy", 0);
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::copy_", 0);
  copy_h2d (s, m, s->compute_lane, (guint64) s->sc->batch * 1024 * 2, FALSE);
  op_end (s, m);
  op_end (s, m);
  op_end (s, m);

  for (int l = 0; l < layers; l++)
    {
      gint addmm;
      guint32 flow = ++s->next_flow;

      op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::linear", s->a_mlp);
      op_leaf (s, m, "aten::t", US (1.5));
      addmm = op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::addmm", s->a_mlp);
      ev_at (s, addmm)->flow_out = flow;
      g_array_append_val (s->fwd_flows, flow);
      launch (s, m, s->compute_lane, KT_GEMM, US (3.4));
      op_end (s, m);
      op_end (s, m);
      mlp_launch_op (s, m, "aten::relu", 0, KT_RELU, US (1.9));
    }
  op_begin (s, m, CP_GEN_CAT_CPU_OP, "aten::mse_loss", 0);
  launch (s, m, s->compute_lane, KT_SUB, US (2.1));
  launch (s, m, s->compute_lane, KT_POW, US (2.0));
  launch (s, m, s->compute_lane, KT_MEAN, US (3.1));
  op_end (s, m);

  {
    gint64 gap = jit (s, US (15), 0.3);

    s->clock[a] = MAX (s->clock[a], s->clock[m] + gap);
  }
  bwd_begin (s, "MseLossBackward0", 0);
  op_begin (s, a, CP_GEN_CAT_CPU_OP, "aten::mse_loss_backward", 0);
  launch (s, a, s->compute_lane, KT_MSE_BWD, US (2.2));
  op_end (s, a);
  bwd_end (s);
  for (int l = layers - 1; l >= 0; l--)
    {
      bwd_begin (s, "ReluBackward0", 0);
      mlp_launch_op (s, a, "aten::threshold_backward", 0, KT_RELU_BWD, US (2.1));
      bwd_end (s);
      bwd_begin (s, "AddmmBackward0", pop_fwd_flow (s));
      op_leaf (s, a, "aten::t", US (1.5));
      mlp_launch_op (s, a, "aten::mm", s->a_mlp, KT_GEMM_NN, US (3.3));
      op_leaf (s, a, "aten::t", US (1.5));
      mlp_launch_op (s, a, "aten::mm", s->a_mlp, KT_GEMM_NT, US (3.6));
      mlp_launch_op (s, a, "aten::sum", 0, KT_SUM, US (2.6));
      bwd_end (s);
    }
  g_array_set_size (s->fwd_flows, 0);
  {
    gint64 gap = jit (s, US (20), 0.3);

    s->clock[m] = MAX (s->clock[m], s->clock[a] + gap);
  }

  /* Adam with foreach=False: seven small kernels per parameter. */
  op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION, "Optimizer.step#Adam.step", 0);
  host (s, m, jit (s, US (30), 0.3));
  for (int p = 0; p < layers * 2; p++)
    {
      mlp_launch_op (s, m, "aten::lerp_", 0, KT_ADAM_LERP, US (2.3));
      mlp_launch_op (s, m, "aten::mul_", 0, KT_ADAM_MUL, US (1.9));
      mlp_launch_op (s, m, "aten::addcmul_", 0, KT_ADAM_ADDCMUL, US (2.2));
      mlp_launch_op (s, m, "aten::sqrt", 0, KT_ADAM_SQRT, US (1.9));
      mlp_launch_op (s, m, "aten::div_", 0, KT_ADAM_DIV, US (2.0));
      mlp_launch_op (s, m, "aten::add_", 0, KT_ADAM_ADD, US (1.9));
      mlp_launch_op (s, m, "aten::addcdiv_", 0, KT_ADAM_ADDCDIV, US (2.3));
      host (s, m, jit (s, US (3), 0.3));
    }
  op_end (s, m);
  op_begin (s, m, CP_GEN_CAT_USER_ANNOTATION, "Optimizer.zero_grad#Adam.zero_grad", 0);
  host (s, m, jit (s, US (40), 0.3));
  op_end (s, m);
  op_end (s, m);
}

/* ------------------------------------------------------------------------ */

static void
add_lane (CpGenSim     *s,
          int          *slot,
          CpGenLaneKind kind,
          gint64        id,
          const char   *name)
{
  CpGenLane *lane = &s->lanes[s->n_lanes];

  g_assert (s->n_lanes < CP_GEN_MAX_LANES);
  lane->kind = kind;
  lane->id = id;
  lane->name = name;
  *slot = s->n_lanes++;
}

static guint16
gemm_args (CpGenSim   *s,
           const char *dims,
           int         n)
{
  const char *type = s->sc->fp32 ? "\"float\"" : "\"c10::BFloat16\"";
  g_autoptr(GString) str = g_string_new (NULL);

  g_string_append_printf (str, "\"Input Dims\": %s, \"Input type\": [", dims);
  for (int i = 0; i < n; i++)
    g_string_append_printf (str, "%s%s", i ? ", " : "", type);
  g_string_append (str, "]");
  return intern_args (s, str->str);
}

void
cp_gen_sim_slowed (CpGenSim *sim,
                   guint64  *n_kernels,
                   gint64   *total_ns)
{
  *n_kernels = sim->slowed_n;
  *total_ns = sim->slowed_ns;
}

CpGenSim *
cp_gen_sim_new (const CpGenScenarioInfo *info,
                guint64                  seed)
{
  CpGenSim *s = g_new0 (CpGenSim, 1);
  guint64 x = seed ^ G_GUINT64_CONSTANT (0x43686f6b65706f69);
  guint rows;
  g_autofree char *d = NULL;

  s->sc = scenario_for_info (info);
  g_return_val_if_fail (s->sc != NULL, NULL);
  s->sc_varied = *s->sc;
  s->host_scale = s->sc->host_scale > 0 ? s->sc->host_scale : 1.0;
  s->worker_batch_ns = s->sc->loader_ns;
  if (variation.loader_workers > 0 && s->sc->single_loader)
    {
      /* Worker processes decode and collate; the training process waits
       * only for the pin-memory thread's copy of the batch into page-locked
       * memory (~16 us per image), and its Python, sharing the cores with
       * the workers, runs 1.25% slower per worker. */
      s->sc_varied.single_loader = FALSE;
      s->sc_varied.loader_ns = US (16) * s->sc->batch;
      s->host_scale *= 1.0 + 0.0125 * variation.loader_workers;
    }
  if (variation.loader_ns > 0)
    s->sc_varied.loader_ns = variation.loader_ns;
  s->sc = &s->sc_varied;
  for (int i = 0; i < 4; i++)
    s->rng[i] = splitmix64 (&x);

  s->run.pid = 10000 + (gint64) (splitmix64 (&x) % 80000);
  s->run.base_time_ns = G_GINT64_CONSTANT (1767225600000000000)
                        + (gint64) (splitmix64 (&x) % 2000) * 3600 * G_GINT64_CONSTANT (1000000000);
  s->run.origin_rel_ns = G_GINT64_CONSTANT (1800000000000)
                         + (gint64) (splitmix64 (&x) % G_GINT64_CONSTANT (1700000000000));
  s->run.process_name = "python3";
  s->run.hostname = "gpu-node-07";
  s->run.device_name = "NVIDIA H100 80GB HBM3";
  s->run.total_global_mem = G_GUINT64_CONSTANT (85045231616);
  s->run.num_sms = 132;
  s->run.compute_major = 9;
  s->run.compute_minor = 0;
  s->run.clock_khz = 1980000;
  s->run.memory_bandwidth = G_GUINT64_CONSTANT (3352000000000);
  s->run.world_size = s->sc->comm ? 16 : 1;
  s->run.ranks_per_node = 8;
  {
    /* Two draws in two statements (argument order is unspecified). */
    guint64 hi = splitmix64 (&x);
    guint64 lo = splitmix64 (&x);

    s->trace_id = g_strdup_printf ("%016" G_GINT64_MODIFIER "X%016" G_GINT64_MODIFIER "X", hi, lo);
  }
  s->run.trace_id = s->trace_id;

  add_lane (s, &s->main_lane, CP_GEN_LANE_HOST, s->run.pid, "python3");
  add_lane (s, &s->bwd_lane, CP_GEN_LANE_HOST, s->run.pid + 78, "pt_autograd_0");
  add_lane (s, &s->compute_lane, CP_GEN_LANE_STREAM, 7, NULL);
  s->copy_lane = s->nccl_lane = -1;
  if (s->sc->copy_stream)
    add_lane (s, &s->copy_lane, CP_GEN_LANE_STREAM, 13, NULL);
  if (s->sc->comm)
    add_lane (s, &s->nccl_lane, CP_GEN_LANE_STREAM, 20, NULL);
  add_lane (s, &s->counter_lane, CP_GEN_LANE_COUNTERS, 0, NULL);

  s->lanes[s->compute_lane].types = CP_GEN_STREAM_COMPUTE | CP_GEN_STREAM_MEMSET;
  if (s->copy_lane >= 0)
    s->lanes[s->copy_lane].types = CP_GEN_STREAM_H2D;
  else
    s->lanes[s->compute_lane].types |= CP_GEN_STREAM_H2D;
  if (s->sc->sync_stalls)
    s->lanes[s->compute_lane].types |= CP_GEN_STREAM_D2H;
  if (s->nccl_lane >= 0)
    s->lanes[s->nccl_lane].types = CP_GEN_STREAM_COMPUTE;
  if (s->sc->model == MODEL_MLP)
    s->lanes[s->compute_lane].types = CP_GEN_STREAM_COMPUTE | CP_GEN_STREAM_H2D;

  for (guint i = 0; i < CP_GEN_MAX_LANES; i++)
    {
      s->stack[i] = g_array_new (FALSE, FALSE, sizeof (gint));
      s->queue[i].ring = g_new0 (gint64, CP_GEN_QUEUE_DEPTH);
    }
  s->events = g_array_sized_new (FALSE, FALSE, sizeof (CpGenEvent), 16384);
  s->mem = g_array_new (FALSE, FALSE, sizeof (CpGenMemEvent));
  s->mem_step_ends = g_array_new (FALSE, FALSE, sizeof (gint64));
  s->iter_kernels = g_array_new (FALSE, FALSE, 2 * sizeof (gint64));
  /* The caching allocator rounds what it reserves to 20 MiB segments. */
  s->mem_allocated = s->sc->mem_base;
  s->mem_reserved = (s->sc->mem_base + (20 << 20) - 1) / (20 << 20) * (20 << 20);
  s->mem_peak_allocated = s->mem_allocated;
  s->mem_peak_reserved = s->mem_reserved;
  s->mem_next_addr = G_GUINT64_CONSTANT (0x7f0000000000);
  s->names = g_ptr_array_new_with_free_func (g_free);
  s->name_index = g_hash_table_new (g_str_hash, g_str_equal);
  s->static_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->outer_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->args = g_ptr_array_new_with_free_func (g_free);
  s->args_index = g_hash_table_new (g_str_hash, g_str_equal);
  s->fwd_flows = g_array_new (FALSE, FALSE, sizeof (guint32));
  intern_args (s, "");   /* args 0: none */

  s->next_corr = 1000 + splitmix64 (&x) % 400000;
  s->next_ext = 1;
  s->first_step_num = 2;

  s->n_launch = intern_name (s, "cudaLaunchKernel");
  s->n_memcpy_async = intern_name (s, "cudaMemcpyAsync");
  s->n_memset_async = intern_name (s, "cudaMemsetAsync");
  s->n_stream_sync = intern_name (s, "cudaStreamSynchronize");
  s->n_device_sync = intern_name (s, "cudaDeviceSynchronize");
  s->n_event_record = intern_name (s, "cudaEventRecord");
  s->n_stream_wait = intern_name (s, "cudaStreamWaitEvent");

  rows = (guint) s->sc->batch * VIT_TOKENS;
  d = g_strdup_printf ("[[%d], [%u, %d], [%d, %d], [], []]", 3 * VIT_HIDDEN, rows, VIT_HIDDEN, VIT_HIDDEN, 3 * VIT_HIDDEN);
  s->a_qkv = gemm_args (s, d, 3);
  g_free (d);
  d = g_strdup_printf ("[[%d], [%u, %d], [%d, %d], [], []]", VIT_HIDDEN, rows, VIT_HIDDEN, VIT_HIDDEN, VIT_HIDDEN);
  s->a_proj = gemm_args (s, d, 3);
  g_free (d);
  d = g_strdup_printf ("[[%d], [%u, %d], [%d, %d], [], []]", VIT_MLP, rows, VIT_HIDDEN, VIT_HIDDEN, VIT_MLP);
  s->a_fc1 = gemm_args (s, d, 3);
  g_free (d);
  d = g_strdup_printf ("[[%d], [%u, %d], [%d, %d], [], []]", VIT_HIDDEN, rows, VIT_MLP, VIT_MLP, VIT_HIDDEN);
  s->a_fc2 = gemm_args (s, d, 3);
  g_free (d);
  d = g_strdup_printf ("[[1000], [%d, %d], [%d, 1000], [], []]", s->sc->batch, VIT_HIDDEN, VIT_HIDDEN);
  s->a_head = gemm_args (s, d, 3);
  g_free (d);
  d = g_strdup_printf ("[[%d, 3, 224, 224], [%d, 3, 16, 16], [%d], [], [], [], [], [], []]",
                       s->sc->batch, VIT_HIDDEN, VIT_HIDDEN);
  s->a_conv = gemm_args (s, d, 3);
  g_free (d);
  d = g_strdup_printf ("[[%d, %d, 64], [%d, 64, %d]]", s->sc->batch * 12, VIT_TOKENS, s->sc->batch * 12, VIT_TOKENS);
  s->a_bmm = gemm_args (s, d, 2);
  g_free (d);
  d = g_strdup_printf ("[[1024], [%d, 1024], [1024, 1024], [], []]", s->sc->batch);
  s->a_mlp = gemm_args (s, d, 3);
  for (int b = 0; b < 4; b++)
    {
      static const guint64 nelems[4] = { 26214400, 26214400, 26214400, 7340032 };
      g_autofree char *nccl = g_strdup_printf (
        "\"Collective name\": \"allreduce\", \"dtype\": \"BFloat16\", \"In msg nelems\": %" G_GUINT64_FORMAT
        ", \"Out msg nelems\": %" G_GUINT64_FORMAT ", \"Group size\": 16, \"Process Group Name\": \"0\", "
        "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\", "
        "\"Rank\": 0", nelems[b], nelems[b]);

      s->a_nccl[b] = intern_args (s, nccl);
    }
  return s;
}

void
cp_gen_sim_free (CpGenSim *s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < CP_GEN_MAX_LANES; i++)
    {
      g_array_unref (s->stack[i]);
      g_free (s->queue[i].ring);
    }
  g_array_unref (s->events);
  g_array_unref (s->mem);
  g_array_unref (s->mem_step_ends);
  g_array_unref (s->iter_kernels);
  g_hash_table_unref (s->name_index);
  g_hash_table_unref (s->static_index);
  g_hash_table_unref (s->outer_index);
  g_ptr_array_unref (s->names);
  g_hash_table_unref (s->args_index);
  g_ptr_array_unref (s->args);
  g_array_unref (s->fwd_flows);
  g_free (s->trace_id);
  g_free (s);
}

static void
sample_counters (CpGenSim *s,
                 gint64    until)
{
  guint32 power = intern_static (s, CP_GEN_COUNTER_POWER);
  guint32 clock = intern_static (s, CP_GEN_COUNTER_CLOCK);

  while (s->next_counter <= until)
    {
      gint i;

      i = add_event (s, s->counter_lane, CP_GEN_CAT_COUNTER, power, s->next_counter, 0);
      ev_at (s, i)->value = (double) (jit (s, 540000, 0.12));
      i = add_event (s, s->counter_lane, CP_GEN_CAT_COUNTER, clock, s->next_counter, 0);
      ev_at (s, i)->value = (double) (1755 + 15 * (gint64) (rng_next (s) % 16));
      s->next_counter += jit (s, MS (5), 0.02);
    }
}

static void
mem_event (CpGenSim *s,
           gint64    ts,
           gint64    bytes,
           guint64   addr)
{
  CpGenMemEvent e;
  const gint64 seg = 20 << 20;

  s->mem_allocated += bytes;
  s->mem_reserved = MAX (s->mem_reserved, (s->mem_allocated + seg - 1) / seg * seg);
  s->mem_peak_allocated = MAX (s->mem_peak_allocated, s->mem_allocated);
  s->mem_peak_reserved = MAX (s->mem_peak_reserved, s->mem_reserved);
  e.ts = ts;
  e.bytes = bytes;
  e.addr = addr;
  e.allocated = s->mem_allocated;
  e.reserved = s->mem_reserved;
  g_array_append_val (s->mem, e);
  s->mem_n++;
}

/* A memory scenario's step: the activations are allocated in 8 blocks
 * over the first half of the host's step and freed over the second; the
 * leak is allocated last and never freed. */
#define MEM_BLOCKS 8
static void
mem_step (CpGenSim *s,
          gint64    start,
          gint64    end)
{
  guint64 addr[MEM_BLOCKS];
  gint64 span = MAX (end - start, 4 * MEM_BLOCKS + 4);

  g_array_set_size (s->mem, 0);
  if (s->sc->mem_act == 0 && s->sc->mem_leak == 0)
    return;
  for (guint k = 0; k < MEM_BLOCKS; k++)
    {
      addr[k] = s->mem_next_addr;
      s->mem_next_addr += (guint64) (s->sc->mem_act / MEM_BLOCKS) + 4096;
      mem_event (s, start + span * (k + 1) / (2 * MEM_BLOCKS + 3), s->sc->mem_act / MEM_BLOCKS, addr[k]);
    }
  for (guint k = 0; k < MEM_BLOCKS; k++)
    mem_event (s, start + span * (MEM_BLOCKS + k + 1) / (2 * MEM_BLOCKS + 3), -(s->sc->mem_act / MEM_BLOCKS),
               addr[MEM_BLOCKS - 1 - k]);
  if (s->sc->mem_leak > 0)
    {
      mem_event (s, start + span * (2 * MEM_BLOCKS + 1) / (2 * MEM_BLOCKS + 3), s->sc->mem_leak, s->mem_next_addr);
      s->mem_next_addr += (guint64) s->sc->mem_leak + 4096;
    }
  /* What the step keeps replaces what the step before kept. */
  if (s->sc->mem_step_end != NULL)
    {
      gint64 kept = s->sc->mem_step_end[s->steps_done % s->sc->n_mem_step_end] - s->sc->mem_base;

      if (s->mem_kept > 0)
        mem_event (s, start + span * (2 * MEM_BLOCKS + 1) / (2 * MEM_BLOCKS + 3), -s->mem_kept, s->mem_kept_addr);
      if (kept > 0)
        {
          s->mem_kept_addr = s->mem_next_addr;
          s->mem_next_addr += (guint64) kept + 4096;
          mem_event (s, start + span * (2 * MEM_BLOCKS + 2) / (2 * MEM_BLOCKS + 3), kept, s->mem_kept_addr);
        }
      s->mem_kept = kept;
    }
  g_array_append_val (s->mem_step_ends, s->mem_allocated);
}

const gint64 *
cp_gen_sim_memory_step_ends (CpGenSim *s,
                             guint    *n_steps)
{
  *n_steps = s->mem_step_ends->len;
  return (const gint64 *) (void *) s->mem_step_ends->data;
}

const CpGenMemEvent *
cp_gen_sim_memory_events (CpGenSim *s,
                          guint    *n_events)
{
  *n_events = s->mem->len;
  return (const CpGenMemEvent *) (void *) s->mem->data;
}

gboolean
cp_gen_sim_memory_truth (CpGenSim *s,
                         gint64   *peak_allocated,
                         gint64   *peak_reserved,
                         guint64  *n_events)
{
  if (s->sc->mem_act == 0 && s->sc->mem_leak == 0)
    return FALSE;
  *peak_allocated = s->mem_peak_allocated;
  *peak_reserved = s->mem_peak_reserved;
  *n_events = s->mem_n;
  return TRUE;
}

static gint
cmp_span (gconstpointer a,
          gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Ends the iteration in progress at `end`: its kernels' busy time is the
 * union of their intervals clipped to it (a kernel launched late in one
 * iteration may run into the next, which counts the rest). */
static void
iteration_end (CpGenSim *s,
               gint64    end)
{
  GArray *k = s->iter_kernels;
  CpGenIteration it = { 0, };
  gint64 cs = 0, ce = G_MININT64;
  guint kept = 0;

  g_array_sort (k, cmp_span);
  for (guint i = 0; i <= k->len; i++)
    {
      const gint64 *p = i < k->len ? &g_array_index (k, gint64, 2 * i) : NULL;

      if (p != NULL && p[0] <= ce)
        {
          ce = MAX (ce, p[1]);
          continue;
        }
      if (ce > cs)
        it.gpu_busy_ns += MAX (0, MIN (ce, end) - MAX (cs, s->iter_start));
      if (p != NULL)
        {
          cs = p[0];
          ce = p[1];
        }
    }
  /* Keep what reaches past the end. */
  for (guint i = 0; i < k->len; i++)
    if (g_array_index (k, gint64, 2 * i + 1) > end)
      {
        g_array_index (k, gint64, 2 * kept) = g_array_index (k, gint64, 2 * i);
        g_array_index (k, gint64, 2 * kept + 1) = g_array_index (k, gint64, 2 * i + 1);
        kept++;
      }
  g_array_set_size (k, kept);

  it.index = s->iter_index++;
  it.warmup = s->sc->warmup && it.index == 0;
  it.start = s->iter_start;
  it.end = end;
  it.loading_ns = MIN (s->iter_loading, end - s->iter_start);
  if (s->iter_func != NULL)
    s->iter_func (&it, s->iter_data);
  s->iter_open = FALSE;
}

const CpGenEvent *
cp_gen_sim_step (CpGenSim *s,
                 guint    *n_events)
{
  gint64 step_start;
  int m;

  g_array_set_size (s->events, 0);
  m = s->main_lane;
  step_start = s->clock[m];
  /* The next iteration starts here, with the DataLoader. */
  if (s->iter_open)
    iteration_end (s, step_start);
  if (s->sc->model == MODEL_MLP)
    mlp_step (s);
  else
    vit_step (s);
  g_assert (s->stack[m]->len == 0 && s->stack[s->bwd_lane]->len == 0);

  /* Whole steps are the evidence for launch-bound and fp32 captures. */
  if (s->sc->model == MODEL_MLP || s->sc->fp32)
    {
      gint64 end = s->clock[m];

      for (guint i = 0; i < s->n_lanes; i++)
        if (s->lanes[i].kind == CP_GEN_LANE_STREAM)
          end = MAX (end, s->stream_free[i]);
      truth_add (s, step_start, end);
    }
  if (s->sc->unmarked)
    {
      for (guint i = 0; i < s->events->len; i++)
        if (ev_at (s, i)->cat == CP_GEN_CAT_KERNEL)
          {
            gint64 span[2] = { ev_at (s, i)->ts, ev_at (s, i)->ts + ev_at (s, i)->dur };

            g_array_append_val (s->iter_kernels, span);
          }
      s->iter_open = TRUE;
    }
  sample_counters (s, s->clock[m]);
  mem_step (s, step_start, s->clock[m]);
  s->steps_done++;
  *n_events = s->events->len;
  return (const CpGenEvent *) s->events->data;
}

void
cp_gen_sim_finish (CpGenSim *s)
{
  if (s->sync_pending)
    {
      truth_add (s, s->sync_start, MAX (s->clock[s->main_lane], s->sync_start + 1));
      s->sync_pending = FALSE;
    }
  truth_flush (s);
  /* The last iteration lasts until the capture ends. */
  if (s->iter_open)
    iteration_end (s, s->end_ns);
}

void
cp_gen_sim_set_truth_func (CpGenSim       *s,
                           CpGenTruthFunc  func,
                           gpointer        user_data)
{
  s->truth_func = func;
  s->truth_data = user_data;
}

void
cp_gen_sim_set_iteration_func (CpGenSim           *s,
                               CpGenIterationFunc  func,
                               gpointer            user_data)
{
  s->iter_func = func;
  s->iter_data = user_data;
}

guint
cp_gen_sim_steps_done (CpGenSim *s)
{
  return s->steps_done;
}

gint64
cp_gen_sim_end_ns (CpGenSim *s)
{
  return s->end_ns;
}

const CpGenLane *
cp_gen_sim_lanes (CpGenSim *s,
                  guint    *n_lanes)
{
  *n_lanes = s->n_lanes;
  return s->lanes;
}

const char *
cp_gen_sim_name (CpGenSim *s,
                 guint32   name)
{
  g_return_val_if_fail (name < s->names->len, "");
  return g_ptr_array_index (s->names, name);
}

guint
cp_gen_sim_n_names (CpGenSim *s)
{
  return s->names->len;
}

const char *
cp_gen_sim_args (CpGenSim *s,
                 guint16   args)
{
  g_return_val_if_fail (args < s->args->len, "");
  return g_ptr_array_index (s->args, args);
}

const CpGenKernelSpec *
cp_gen_sim_kernel (CpGenSim *s,
                   guint16   spec)
{
  g_return_val_if_fail (spec < K_N_SPECS, NULL);
  return &kernel_specs[spec];
}

const CpGenCopySpec *
cp_gen_sim_copy (guint16 spec)
{
  g_return_val_if_fail (spec < C_N_COPIES, NULL);
  return &copy_specs[spec];
}

const CpGenRunInfo *
cp_gen_sim_run_info (CpGenSim *s)
{
  return &s->run;
}
