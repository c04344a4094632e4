/* cp-rules.c: the rule catalog and its evaluation into findings
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-analysis-private.h"
#include "cp-memory.h"
#include "cp-rules.h"
#include "cp-sweep.h"

/* Fixes, per rule and framework. */

static const char * const fix_pageable_pt[] = {
  N_("Pin the host buffers: DataLoader(pin_memory=True), or tensor.pin_memory() once for buffers you reuse"),
  N_("Then copy with tensor.to(device, non_blocking=True) so the copy runs asynchronously"),
  NULL
};
static const char * const fix_pageable_jax[] = {
  N_("Hand JAX device-ready batches: jax.device_put prefetched batches ahead of the step instead of converting fresh NumPy arrays inside it"),
  NULL
};
static const char * const fix_pageable_tf[] = {
  N_("Prefetch to the GPU (tf.data.experimental.prefetch_to_device or the distribution strategy's input pipeline) so copies come from pinned staging memory"),
  NULL
};

static const char * const fix_sync_pt[] = {
  N_("Do not read device values every step: .item(), .cpu(), .tolist(), print(tensor) and Python conditions on tensors all wait for the GPU"),
  N_("Accumulate losses and metrics on the GPU and read them every N steps"),
  N_("Remove torch.cuda.synchronize() from the training loop (keep it for timing only)"),
  N_("Use non_blocking copies and CUDA events instead of blocking synchronisation"),
  NULL
};
static const char * const fix_sync_jax[] = {
  N_("Avoid block_until_ready(), float(x) or np.asarray(x) on device values inside the step loop"),
  N_("Log metrics every N steps, or asynchronously (jax.debug.callback)"),
  N_("Keep control flow on the device with jax.lax.cond and jax.lax.while_loop"),
  NULL
};
static const char * const fix_sync_tf[] = {
  N_("Avoid .numpy() and Python conditions on tensors inside the training loop"),
  N_("Read metrics every N steps"),
  N_("Keep the loop inside tf.function"),
  NULL
};

static const char * const fix_input_pt[] = {
  N_("Load batches in worker processes: DataLoader(num_workers=N) with N up to the CPU cores per GPU, and persistent_workers=True"),
  N_("Keep batches ready while the GPU works: prefetch_factor, pin_memory=True and .to(device, non_blocking=True)"),
  N_("Move heavy decoding and augmentation out of the loop: preprocess offline, or on the GPU (NVIDIA DALI, torchvision transforms on GPU tensors)"),
  NULL
};
static const char * const fix_input_jax[] = {
  N_("Feed batches from a tf.data or Grain pipeline with prefetching, and prefetch to the device (flax.jax_utils.prefetch_to_device)"),
  N_("Parallelise decoding and augmentation (tf.data map with num_parallel_calls=tf.data.AUTOTUNE, Grain worker_count)"),
  N_("Preprocess offline or cache decoded data"),
  NULL
};
static const char * const fix_input_tf[] = {
  N_("End the tf.data pipeline with .prefetch(tf.data.AUTOTUNE)"),
  N_("Parallelise: map(..., num_parallel_calls=tf.data.AUTOTUNE) and interleave for file reads"),
  N_("Cache decoded data with .cache() or preprocess offline; the input pipeline analyzer shows the slow stage"),
  NULL
};

static const char * const fix_pipeline_pt[] = {
  N_("Load batches in worker processes: DataLoader(num_workers=N), with prefetch_factor and pin_memory=True"),
  NULL
};
static const char * const fix_pipeline_tf[] = {
  N_("End the tf.data pipeline with .prefetch(tf.data.AUTOTUNE) so the next batch is prepared while the device computes"),
  N_("Parallelise the slowest stage: map(..., num_parallel_calls=tf.data.AUTOTUNE), interleave(..., num_parallel_calls=tf.data.AUTOTUNE) for file reads"),
  N_("Cache what does not change between epochs with .cache(), or preprocess offline"),
  NULL
};

/* Stage-specific tf.data fixes, for the stage with the most self time. */
static const char *
pipeline_stage_fix (const char *stage)
{
  if (g_str_has_prefix (stage, "ParallelMap") || g_str_has_prefix (stage, "MapAndBatch"))
    return N_("The parallel map is the slowest stage: cache() its output if it fits in memory, make the function cheaper, or move the work offline");
  if (g_str_has_prefix (stage, "Map"))
    return N_("The map is the slowest stage and runs one element at a time: map(..., num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)");
  if (strstr (stage, "Record") || strstr (stage, "TextLine") || strstr (stage, "Interleave") ||
      g_str_has_prefix (stage, "FlatMap") || strstr (stage, "File"))
    return N_("Reading is the slowest stage: read files in parallel with interleave(..., num_parallel_calls=tf.data.AUTOTUNE), and cache() small data sets");
  if (strstr (stage, "Batch"))
    return N_("Batching is the slowest stage: batch before map to vectorise the transformation, and use num_parallel_calls=tf.data.AUTOTUNE in batch");
  if (strstr (stage, "Generator"))
    return N_("A Python generator feeds the pipeline: replace it with tf.data sources (TFRecordDataset, from_tensor_slices) that run outside the interpreter");
  if (strstr (stage, "Shuffle"))
    return N_("Shuffling is the slowest stage: use a smaller shuffle buffer, or shuffle the file names before interleave");
  return NULL;
}

static const char * const fix_loader_pt[] = {
  N_("Set DataLoader(num_workers=N) with N > 0 so loading runs in worker processes instead of the training loop"),
  N_("Add persistent_workers=True and pin_memory=True"),
  NULL
};
static const char * const fix_loader_jax[] = {
  N_("Run the input pipeline in background threads or processes (tf.data, Grain with worker_count > 0)"),
  NULL
};
static const char * const fix_loader_tf[] = {
  N_("Use tf.data with num_parallel_calls=tf.data.AUTOTUNE and prefetch instead of a Python generator"),
  NULL
};

static const char * const fix_transfer_pt[] = {
  N_("Pin host memory (DataLoader(pin_memory=True) or tensor.pin_memory()) and copy with .to(device, non_blocking=True)"),
  N_("Copy fewer, larger buffers, and keep data on the GPU across steps"),
  N_("Overlap copies with compute: prefetch the next batch to the GPU on a side CUDA stream"),
  NULL
};
static const char * const fix_transfer_jax[] = {
  N_("Prefetch batches to the device ahead of the step (jax.device_put, flax.jax_utils.prefetch_to_device)"),
  N_("Keep arrays on the device between steps instead of uploading them again"),
  N_("Transfer in bulk rather than many small arrays"),
  NULL
};
static const char * const fix_transfer_tf[] = {
  N_("Prefetch to the device: tf.data.experimental.prefetch_to_device or the distribution strategy's input pipeline"),
  N_("Batch small transfers together"),
  N_("Keep tensors on the GPU between steps"),
  NULL
};

static const char * const fix_async_pt[] = {
  N_("Start the copies earlier so they overlap compute: issue them on a side CUDA stream one step ahead"),
  N_("Offload less: keep tensors on the device when they fit"),
  NULL
};
static const char * const fix_async_jax[] = {
  N_("Offload less: keep the arrays in device memory when they fit (fewer memory_kind=\"pinned_host\" shardings or offloading remat policies)"),
  N_("Give the copies compute to hide behind: offload activations that are needed much later, so that XLA's copy-start is far from its copy-done"),
  N_("Look at the op profile for the copy-done ops the device waits in, and the HBM use that made XLA offload them"),
  NULL
};
static const char * const fix_async_tf[] = {
  N_("Keep tensors in device memory when they fit instead of offloading them to the host"),
  N_("Look at the op profile for the copy-done ops the device waits in"),
  NULL
};

static const char * const fix_output_pt[] = {
  N_("Copy results to the host less often: accumulate on the GPU and transfer every N steps"),
  N_("Copy into pinned buffers with non_blocking=True"),
  N_("Avoid .cpu() and .numpy() on large tensors inside the step"),
  NULL
};
static const char * const fix_output_jax[] = {
  N_("Fetch results from the device less often, and only what you need (jax.device_get every N steps)"),
  NULL
};
static const char * const fix_output_tf[] = {
  N_("Fetch fewer outputs per step; write summaries every N steps"),
  NULL
};

static const char * const fix_comm_pt[] = {
  N_("Overlap gradient all-reduce with backward: DistributedDataParallel buckets (tune bucket_cap_mb); avoid find_unused_parameters=True when not needed"),
  N_("Communicate less per step: gradient accumulation with no_sync(), or a larger batch per GPU"),
  N_("Compress gradients with a DDP communication hook (bf16 / fp16 compression, PowerSGD)"),
  N_("Check for stragglers and the interconnect (NCCL_DEBUG=INFO, topology)"),
  NULL
};
static const char * const fix_comm_jax[] = {
  N_("Let XLA overlap collectives with compute (async collectives and the latency-hiding scheduler)"),
  N_("Reduce collective volume: larger per-device batch, gradient accumulation, bf16 gradients"),
  N_("Check for stragglers and the interconnect"),
  NULL
};
static const char * const fix_comm_tf[] = {
  N_("Use MultiWorkerMirroredStrategy with NCCL and gradient packing"),
  N_("Accumulate gradients or raise the per-replica batch"),
  N_("Check for stragglers and the interconnect"),
  NULL
};

static const char * const fix_overlap_pt[] = {
  N_("Start all-reduce during backward (DistributedDataParallel does; keep gradient_as_bucket_view=True and avoid syncs right after collectives)"),
  N_("With FSDP, enable forward_prefetch and backward_prefetch"),
  NULL
};
static const char * const fix_overlap_jax[] = {
  N_("Enable XLA's latency-hiding scheduler and async collectives so compute overlaps communication"),
  NULL
};
static const char * const fix_overlap_tf[] = {
  N_("Use gradient packing and the communication options of MultiWorkerMirroredStrategy so all-reduce overlaps backward"),
  NULL
};

static const char * const fix_launch_pt[] = {
  N_("Fuse small operations with torch.compile(model); mode=\"reduce-overhead\" also uses CUDA graphs"),
  N_("Capture the step in a CUDA graph (torch.cuda.graphs, make_graphed_callables) so it launches with one call"),
  N_("Give each kernel more work: a larger batch, or gradient accumulation when memory is short"),
  N_("Use fused or foreach optimizers (torch.optim with fused=True or foreach=True)"),
  NULL
};
static const char * const fix_launch_jax[] = {
  N_("jax.jit the whole training step so XLA fuses it into few kernels"),
  N_("Increase the batch size per device"),
  N_("Replace Python loops over small arrays with jax.lax.scan or jax.vmap"),
  NULL
};
static const char * const fix_launch_tf[] = {
  N_("Compile the step with tf.function(jit_compile=True) so XLA fuses small ops"),
  N_("Increase the batch size"),
  N_("Give GPU launches a dedicated thread: TF_GPU_THREAD_MODE=gpu_private"),
  NULL
};

static const char * const fix_host_pt[] = {
  N_("Profile the Python side (torch.profiler with with_stack=True) to see where host time goes between kernels"),
  N_("Cut framework and Python overhead with torch.compile; CUDA graphs remove it from each step"),
  N_("Move logging, metrics and checkpointing out of the step or make them asynchronous"),
  N_("Use a larger batch so each step has more device work per host overhead"),
  NULL
};
static const char * const fix_host_jax[] = {
  N_("jax.jit the whole step, optimizer update included"),
  N_("Keep Python work (logging, metrics) out of the step, or do it every N steps"),
  N_("Avoid recompilation: stable shapes and static arguments"),
  NULL
};
static const char * const fix_host_tf[] = {
  N_("Wrap the step in tf.function instead of running eagerly"),
  N_("Avoid retracing with a fixed input_signature"),
  N_("Move per-step Python work out of the loop"),
  NULL
};

static const char * const fix_amp_pt[] = {
  N_("Train with automatic mixed precision: torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16), or float16 with torch.amp.GradScaler"),
  N_("Allow TF32 for the remaining fp32 matmuls and convolutions on Ampere and newer: torch.set_float32_matmul_precision(\"high\") and torch.backends.cudnn.allow_tf32 = True"),
  N_("Keep matmul and channel dimensions multiples of 8 so tensor cores apply"),
  NULL
};
static const char * const fix_amp_jax[] = {
  N_("Compute in bfloat16 (model dtype=jnp.bfloat16, or a mixed-precision policy such as jmp) with fp32 master weights"),
  N_("For fp32 matmuls, allow TF32: jax.default_matmul_precision(\"tensorfloat32\")"),
  NULL
};
static const char * const fix_amp_tpu_jax[] = {
  N_("Compute in bfloat16 (model dtype=jnp.bfloat16, or a mixed-precision policy such as jmp) with fp32 master weights: the TPU's MXU multiplies bf16 natively"),
  N_("Check the precision of the f32 dots and convolutions: precision=HIGHEST (or jax.default_matmul_precision(\"highest\")) makes the MXU take several bf16 passes each"),
  NULL
};
static const char * const fix_amp_tpu_tf[] = {
  N_("Enable mixed precision: tf.keras.mixed_precision.set_global_policy(\"mixed_bfloat16\"), the TPU's MXU multiplies bf16 natively"),
  NULL
};
static const char * const fix_amp_tf[] = {
  N_("Enable mixed precision: tf.keras.mixed_precision.set_global_policy(\"mixed_float16\") or \"mixed_bfloat16\""),
  N_("Keep TF32 enabled on Ampere and newer: tf.config.experimental.enable_tensor_float_32_execution(True)"),
  NULL
};

static const char * const fix_roofline_pt[] = {
  N_("Fuse chains of elementwise ops, norms and activations with torch.compile: one kernel then reads and writes the tensors once instead of once per op"),
  N_("Give matmuls tensor-core friendly shapes: every dimension a multiple of 8 in 16-bit (16 in 8-bit), batch small GEMMs with bmm or a larger batch"),
  N_("Run attention through torch.nn.functional.scaled_dot_product_attention so the flash or memory-efficient kernel replaces softmax(Q·Kᵀ)·V"),
  N_("Let torch.compile(mode=\"max-autotune\") pick tile shapes for the GEMMs and convolutions that stay far from their ceiling"),
  NULL
};
static const char * const fix_roofline_jax[] = {
  N_("jax.jit the whole step so that XLA fuses elementwise chains into the matmuls and reductions around them"),
  N_("Pad matmul dimensions to multiples of 128 on TPUs (the MXU tile), of 8 or 16 on GPUs"),
  N_("Use jax.nn.dot_product_attention (cuDNN flash attention) or a Pallas flash attention kernel instead of an explicit softmax(Q·Kᵀ)·V"),
  N_("Let XLA autotune the GEMM tiles (--xla_gpu_autotune_level=4) and try larger batches per device"),
  NULL
};
static const char * const fix_roofline_tf[] = {
  N_("Compile the step with tf.function(jit_compile=True) so that XLA fuses elementwise chains"),
  N_("Keep matmul and channel dimensions multiples of 8 with the mixed_float16 policy so tensor cores apply"),
  N_("Use fused attention (keras.layers.MultiHeadAttention with flash attention, or XLA's fused attention) instead of an explicit softmax(Q·Kᵀ)·V"),
  NULL
};
static const char * const fix_memory_pt[] = {
  N_("Cut activation memory with activation checkpointing (torch.utils.checkpoint) and mixed precision"),
  N_("Lower the batch size and use gradient accumulation"),
  N_("Reduce fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
  NULL
};
static const char * const fix_memory_jax[] = {
  N_("Rematerialise activations (jax.checkpoint) and compute in bfloat16"),
  N_("Shard parameters and optimizer state across devices"),
  N_("Lower the batch size and accumulate gradients"),
  NULL
};
static const char * const fix_memory_tf[] = {
  N_("Use mixed precision and tf.recompute_grad for activations"),
  N_("Lower the batch size and accumulate gradients"),
  NULL
};

static const char * const fix_frag_pt[] = {
  N_("Let the allocator grow segments instead of caching fixed blocks: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
  N_("Allocate the largest, long-lived tensors first and keep their shapes fixed across steps (pad variable lengths to a few buckets)"),
  NULL
};
static const char * const fix_frag_jax[] = {
  N_("Keep array shapes fixed across steps (pad to a few buckets) so that XLA reuses its buffers"),
  NULL
};
static const char * const fix_frag_tf[] = {
  N_("Keep tensor shapes fixed across steps (pad to a few buckets) so that the BFC allocator reuses its chunks"),
  NULL
};
static const char * const fix_leak_pt[] = {
  N_("Do not keep tensors that hold the graph across steps: accumulate loss.item() or loss.detach(), not loss"),
  N_("Look for lists, caches or hooks that gain a tensor every step; torch.cuda.memory._record_memory_history() shows who allocated them"),
  NULL
};
static const char * const fix_leak_jax[] = {
  N_("Do not keep every step's outputs on the device: fetch what you log with jax.device_get() and drop the rest"),
  NULL
};
static const char * const fix_leak_tf[] = {
  N_("Do not keep every step's tensors alive: log .numpy() values, and avoid building new tf.functions or variables each step"),
  NULL
};
static const char * const fix_headroom_pt[] = {
  N_("Raise the batch size towards the estimate (and scale the learning rate), or lower gradient accumulation by the same factor"),
  N_("Or turn off activation checkpointing where it is on: the memory is there to keep activations"),
  NULL
};
static const char * const fix_headroom_jax[] = {
  N_("Raise the batch size towards the estimate, or drop rematerialisation (jax.checkpoint) where memory allows"),
  NULL
};
static const char * const fix_headroom_tf[] = {
  N_("Raise the batch size towards the estimate, or drop tf.recompute_grad where memory allows"),
  NULL
};

static const char * const fix_dp_pt[] = {
  N_("Replace torch.nn.DataParallel with DistributedDataParallel, one process per GPU: no per-step scatter and model replication, no GIL contention"),
  NULL
};
static const char * const fix_dp_jax[] = {
  N_("Shard the batch across devices with jax.jit and a sharding (or jax.pmap)"),
  NULL
};
static const char * const fix_dp_tf[] = {
  N_("Use tf.distribute.MirroredStrategy"),
  NULL
};

static const char * const fix_util_pt[] = {
  N_("Fix the causes listed above first (input, launches, syncs)"),
  N_("Give the GPU more work per step: a larger batch (scale the learning rate) or gradient accumulation"),
  N_("For many small kernels, torch.compile and CUDA graphs"),
  NULL
};
static const char * const fix_util_jax[] = {
  N_("Fix the causes listed above first"),
  N_("Increase the per-device batch size and jax.jit the whole step"),
  NULL
};
static const char * const fix_util_tf[] = {
  N_("Fix the causes listed above first"),
  N_("Increase the batch size and compile with XLA (jit_compile=True)"),
  NULL
};

static const char * const fix_gaps_pt[] = {
  N_("See what the host does during the gaps: the host lanes above them on the timeline"),
  N_("Look for synchronisation, checkpointing, evaluation or logging inside the step loop"),
  N_("Name the work with torch.profiler.record_function or NVTX ranges"),
  NULL
};
static const char * const fix_gaps_jax[] = {
  N_("See what the host does during the gaps, and name it with jax.profiler.TraceAnnotation"),
  N_("Look for checkpointing, evaluation or logging inside the step loop"),
  NULL
};
static const char * const fix_gaps_tf[] = {
  N_("See what the host does during the gaps, and name it with tf.profiler.experimental.Trace"),
  N_("Look for checkpointing, evaluation or logging inside the step loop"),
  NULL
};

/* The catalog. Percent metrics are ratios of sums over the analysis windows:
 * 100 · Σ time / Σ window (XProf's convention).
 *
 * Translators: the last text of each rule cites the tool and rule that the
 * metric and thresholds come from (shown under "Source:" in the Findings pane);
 * keep tool, rule and metric names such as XProf, nsys, cuda_api_sync and
 * DataLoader as they are. */
static const CpRule rules[] = {
  { "pageable-memcpy", N_("Copies from pageable host memory"),
    /* xgettext:no-c-format */
    N_("Copy time to or from pageable host memory, % of step time"), "%",
    CP_COMPARE_GE, 3, 15, TRUE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("nsys cuda_memcpy_async (N3): any async copy with pageable memory; severity by share of step time at XProf's 3 / 15 % levels (Chokepoint)"),
    { fix_pageable_pt, fix_pageable_jax, fix_pageable_tf }, CP_IDLE_CAUSE_TRANSFERS,
    0, CP_RULE_GPU },
  { "sync-stall", N_("Synchronisation stalls"),
    /* xgettext:no-c-format */
    N_("Device idle time after blocking synchronisations, % of step time"), "%",
    CP_COMPARE_GE, 3, 15, TRUE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("nsys cuda_api_sync (N6) and cuda_memcpy_sync (N4): any; severity by the idle time that follows, at XProf's 3 / 15 % levels (Chokepoint)"),
    { fix_sync_pt, fix_sync_jax, fix_sync_tf }, CP_IDLE_CAUSE_SYNC,
    0, CP_RULE_GPU },
  { "input-pipeline", N_("Slow tf.data input pipeline"),
    /* xgettext:no-c-format */
    N_("Wait for the tf.data input pipeline while the device is idle, % of step time"), "%",
    CP_COMPARE_GE, 5, 20, FALSE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("XProf input-pipeline analyzer: device waiting for input >= 20% highly, >= 5% moderately input-bound; the slowest stage by self time (Chokepoint)"),
    { fix_pipeline_pt, fix_pipeline_tf, fix_pipeline_tf }, CP_IDLE_CAUSE_INPUT,
    CP_RULE_XLA_FW, 0 },
  { "input-bound", N_("Input-bound"),
    /* xgettext:no-c-format */
    N_("Data-loading wait while the device is idle, % of step time"), "%",
    CP_COMPARE_GE, 5, 20, FALSE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("XProf InputAnalysis (X1): input% >= 20 highly, >= 5 moderately input-bound; Chokepoint reports the host-to-device part of input separately (transfer-bound)"),
    { fix_input_pt, fix_input_jax, fix_input_tf }, CP_IDLE_CAUSE_INPUT,
    0, 0 },
  { "dataloader-single-process", N_("Data loading in the training process"),
    N_("DataLoader time with num_workers=0 not claimed by device work, per step time (ratio)"), "ratio",
    CP_COMPARE_GT, 0.05, NAN, TRUE, CP_RULE_CAUSE,
    N_("PyTorch TorchTidy SynchronizedDataLoader (T4); TensorBoard plugin slow data loading (P1): DataLoader / step > 0.05"),
    { fix_loader_pt, fix_loader_jax, fix_loader_tf }, CP_IDLE_CAUSE_INPUT,
    CP_RULE_PYTORCH, 0 },
  { "transfer-bound", N_("Host-to-device copies"),
    /* xgettext:no-c-format */
    N_("Host-to-device copy time while the device does not compute, % of step time"), "%",
    CP_COMPARE_GE, 5, 20, FALSE, CP_RULE_CAUSE,
    N_("XProf InputAnalysis (X1) levels applied to its host-to-device part; Smart Suggestions DataTransferBound"),
    { fix_transfer_pt, fix_transfer_jax, fix_transfer_tf }, CP_IDLE_CAUSE_TRANSFERS,
    0, 0 },
  { "async-wait", N_("Waiting for async copies"),
    /* xgettext:no-c-format */
    N_("Time the device waits in XLA async ops (copy-done, *-done) while it computes nothing, % of step time"), "%",
    CP_COMPARE_GE, 5, 20, FALSE, CP_RULE_CAUSE,
    N_("XProf op profile: copy-start / copy-done and other async pairs are waits; levels of XProf's input analysis (X1) applied to them (Chokepoint)"),
    { fix_async_pt, fix_async_jax, fix_async_tf }, CP_IDLE_CAUSE_TRANSFERS,
    0, 0 },
  { "output-bound", N_("Device-to-host copies"),
    /* xgettext:no-c-format */
    N_("Device-to-host copy time while the device does not compute, % of step time"), "%",
    CP_COMPARE_GE, 5, 20, FALSE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("XProf output analysis (X2): output% >= 20 highly, >= 5 moderately"),
    { fix_output_pt, fix_output_jax, fix_output_tf }, CP_IDLE_CAUSE_TRANSFERS,
    0, 0 },
  { "comm-bound", N_("Communication-bound"),
    /* xgettext:no-c-format */
    N_("Collective time not hidden behind compute, % of step time"), "%",
    CP_COMPARE_GE, 3, 15, FALSE, CP_RULE_CAUSE,
    N_("XProf device collectives (X5): >= 15 high, >= 3 moderate"),
    { fix_comm_pt, fix_comm_jax, fix_comm_tf }, CP_IDLE_CAUSE_COMMUNICATION,
    0, 0 },
  { "low-comm-overlap", N_("Communication does not overlap compute"),
    /* xgettext:no-c-format */
    N_("Share of collective time overlapped by compute (ratio), when collectives take >= 3% of step time"), "ratio",
    CP_COMPARE_LT, 0.5, NAN, FALSE, CP_RULE_CAUSE,
    N_("HTA comm/comp overlap (H4), which has no cutoff; Chokepoint flags < 0.5"),
    { fix_overlap_pt, fix_overlap_jax, fix_overlap_tf }, CP_IDLE_CAUSE_COMMUNICATION,
    0, 0 },
  { "launch-bound", N_("Kernel-launch bound"),
    /* xgettext:no-c-format */
    N_("Kernel-launch time while the device is idle, % of step time"), "%",
    CP_COMPARE_GE, 3, 15, FALSE, CP_RULE_CAUSE,
    N_("XProf kernel-launch analysis (X3): >= 15 high, >= 3 moderate; HTA short kernels (H3) as figures"),
    { fix_launch_pt, fix_launch_jax, fix_launch_tf }, CP_IDLE_CAUSE_HOST,
    0, CP_RULE_GPU },
  { "host-overhead", N_("Host overhead"),
    /* xgettext:no-c-format */
    N_("Host compute, runtime calls and unrecorded time while the device is idle, % of step time"), "%",
    CP_COMPARE_GE, 3, 15, FALSE, CP_RULE_CAUSE,
    N_("XProf all-other time (X4): >= 15 high, >= 3 moderate, with host compute added (where PyTorch's Python and dispatch time shows)"),
    { fix_host_pt, fix_host_jax, fix_host_tf }, CP_IDLE_CAUSE_HOST,
    0, 0 },
  { "no-mixed-precision", N_("No mixed precision"),
    /* xgettext:no-c-format */
    N_("32-bit matmul / convolution kernel time without tensor cores, % of device compute time, when < 10% of compute is 16-bit"), "%",
    CP_COMPARE_GE, 3, 15, FALSE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("XProf precision statement (X6): 16-bit < 10% of compute; TensorBoard plugin AMP rule (P6): no tensor-core kernels while eligible ops run; severity at XProf's 3 / 15 % levels (Chokepoint)"),
    { fix_amp_pt, fix_amp_jax, fix_amp_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "below-roofline", N_("Kernels far below the roofline"),
    /* xgettext:no-c-format */
    N_("Time of kernels with at least 1% of compute time each that reach under 30% of their roofline, % of device compute time"), "%",
    CP_COMPARE_GE, 25, 50, FALSE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("Roofline model (XProf roofline analysis, TraceLens TFLOP/s per op): FLOPs and bytes from the capture, the device's datasheet peaks, or for other NVIDIA GPUs its SMs and clock; 25 / 50 % levels (Chokepoint)"),
    { fix_roofline_pt, fix_roofline_jax, fix_roofline_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "memory-pressure", N_("Memory near the device limit"),
    N_("Peak device memory / device memory (ratio)"), "ratio",
    CP_COMPARE_GT, 0.9, NAN, FALSE, CP_RULE_CAUSE,
    N_("TensorBoard plugin memory rule (P7): peak > 0.9 x totalGlobalMem"),
    { fix_memory_pt, fix_memory_jax, fix_memory_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "memory-fragmentation", N_("Fragmented device memory"),
    N_("Reserved but unallocated memory at the reserved peak / reserved (ratio), when reserved > 0.75 x device memory"), "ratio",
    CP_COMPARE_GT, 0.3, 0.5, FALSE, CP_RULE_CAUSE,
    N_("PyTorch CUDA caching allocator (torch.cuda.memory_reserved vs memory_allocated); levels and the 0.75 gate: Chokepoint"),
    { fix_frag_pt, fix_frag_jax, fix_frag_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "memory-leak", N_("Device memory grows across steps"),
    /* xgettext:no-c-format */
    N_("Growth of allocated memory from the first to the last step end, % of peak allocated, when it grows after three in four steps"), "%",
    CP_COMPARE_GT, 5, 20, FALSE, CP_RULE_CAUSE,
    N_("TensorBoard plugin memory view (allocated over time); growth levels: Chokepoint"),
    { fix_leak_pt, fix_leak_jax, fix_leak_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "memory-headroom", N_("Room for a larger batch"),
    N_("Peak device memory / device memory (ratio)"), "ratio",
    CP_COMPARE_LT, 0.5, NAN, FALSE, CP_RULE_CAUSE,
    N_("nvidia-smi Memory-Usage, which \"helps determine if you can increase batch sizes\"; flagged under half the device (Chokepoint)"),
    { fix_headroom_pt, fix_headroom_jax, fix_headroom_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "dataparallel", N_("Single-process DataParallel"),
    N_("Devices running kernels while torch.nn.DataParallel is used (count)"), "count",
    CP_COMPARE_GT, 1, NAN, FALSE, CP_RULE_CAUSE,
    N_("TensorBoard plugin DataParallel rule (P3): DataParallel.forward seen and > 1 device used"),
    { fix_dp_pt, fix_dp_jax, fix_dp_tf }, CP_IDLE_CAUSE_NONE,
    CP_RULE_PYTORCH, 0 },
  { "low-utilization", N_("Low GPU utilisation"),
    N_("Kernel busy time / step time of the least busy device (ratio)"), "ratio",
    CP_COMPARE_LT, 0.5, NAN, FALSE, CP_RULE_SYMPTOM,
    N_("TensorBoard plugin low GPU utilization (P5): utilization < 0.5"),
    { fix_util_pt, fix_util_jax, fix_util_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
  { "gpu-gaps", N_("Long GPU gaps"),
    N_("Longest gap between device operations (ms)"), "ms",
    CP_COMPARE_GT, 500, NAN, FALSE, CP_RULE_SYMPTOM,
    N_("nsys gpu_gaps (N1): gaps > 500 ms (the SQL compares with >)"),
    { fix_gaps_pt, fix_gaps_jax, fix_gaps_tf }, CP_IDLE_CAUSE_NONE,
    0, 0 },
};

const CpRule *
cp_rules_get_all (guint *n_rules)
{
  if (n_rules)
    *n_rules = G_N_ELEMENTS (rules);
  return rules;
}

const CpRule *
cp_rules_lookup (const char *id)
{
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    if (g_strcmp0 (rules[i].id, id) == 0)
      return &rules[i];
  return NULL;
}

const char *
cp_compare_to_string (CpCompare compare)
{
  switch (compare)
    {
    case CP_COMPARE_GT: return ">";
    case CP_COMPARE_LT: return "<";
    case CP_COMPARE_GE:
    default:
      return ">=";
    }
}

static gboolean
passes (CpCompare compare,
        double    value,
        double    threshold)
{
  if (isnan (threshold) || isnan (value))
    return FALSE;
  switch (compare)
    {
    case CP_COMPARE_GT: return value > threshold;
    case CP_COMPARE_LT: return value < threshold;
    case CP_COMPARE_GE:
    default:
      return value >= threshold;
    }
}

gboolean
cp_rule_grade (const CpRule *rule,
               double        value,
               CpSeverity   *severity)
{
  g_return_val_if_fail (rule != NULL, FALSE);

  if (passes (rule->compare, value, rule->high))
    {
      *severity = CP_SEVERITY_HIGH;
      return TRUE;
    }
  if (passes (rule->compare, value, rule->moderate))
    {
      *severity = CP_SEVERITY_MODERATE;
      return TRUE;
    }
  return FALSE;
}

gboolean
cp_rule_applies (const CpRule         *rule,
                 CpDetectedFramework   framework,
                 CpDeviceKind          kind,
                 const char          **why)
{
  g_return_val_if_fail (rule != NULL, FALSE);

  if (rule->frameworks != 0 && framework != CP_DETECTED_NONE && !(rule->frameworks & (1u << framework)))
    {
      if (why != NULL)
        *why = rule->frameworks == CP_RULE_PYTORCH ? _("for PyTorch only")
                                                   : _("for JAX, TensorFlow and XLA only");
      return FALSE;
    }
  if (rule->device_kinds != 0 && !(rule->device_kinds & (1u << kind)))
    {
      if (why != NULL)
        /* Translators: why a rule was not checked on a TPU capture. */
        *why = _("for GPUs only: it measures CUDA / HIP calls and copies that a TPU does not have");
      return FALSE;
    }
  return TRUE;
}

/* Evaluation */

/* What a capture already does, so that a fix is not offered as new. */
typedef enum
{
  APPLIED_TORCH_COMPILE = 1u << 0,
  APPLIED_CUDA_GRAPHS   = 1u << 1,
  APPLIED_AMP           = 1u << 2,
  APPLIED_PINNED        = 1u << 3,
  APPLIED_JAX_JIT       = 1u << 4,
  APPLIED_TF_FUNCTION   = 1u << 5,
} Applied;

typedef struct
{
  CpAnalysis  *self;
  gboolean     has_device;
  gboolean     device_untraced; /* launches recorded, their device work not */
  gboolean     has_host;
  guint        applied;         /* Applied */
} Ctx;

/* The technique a fix recommends, when the capture may already use it. */
static guint
fix_technique (const char *fix)
{
  if (fix == fix_launch_pt[0] || fix == fix_host_pt[1] || fix == fix_util_pt[2])
    return APPLIED_TORCH_COMPILE;
  if (fix == fix_launch_pt[1])
    return APPLIED_CUDA_GRAPHS;
  if (fix == fix_amp_pt[0])
    return APPLIED_AMP;
  if (fix == fix_pageable_pt[0] || fix == fix_transfer_pt[0])
    return APPLIED_PINNED;
  if (fix == fix_launch_jax[0] || fix == fix_host_jax[0] || fix == fix_util_jax[1])
    return APPLIED_JAX_JIT;
  if (fix == fix_host_tf[0])
    return APPLIED_TF_FUNCTION;
  return 0;
}

/* What to look at instead, in a capture that already applies it. */
static const char *
applied_fix (guint technique)
{
  switch (technique)
    {
    case APPLIED_TORCH_COMPILE:
      return N_("The capture already runs under torch.compile: look for graph breaks and recompilations (TORCH_LOGS=\"graph_breaks,recompiles\") and for the ops that still run outside the compiled regions");
    case APPLIED_CUDA_GRAPHS:
      return N_("The capture already launches CUDA graphs: check that the whole step is captured (kernels launched outside the graph launches) and that graphs are not captured again step after step");
    case APPLIED_AMP:
      return N_("16-bit kernels already do most of the compute (autocast or 16-bit weights): look at the matmuls and convolutions left in fp32");
    case APPLIED_PINNED:
      return N_("Some copies already come from pinned memory: pin the buffers of the pageable ones too, and check that the copies are non_blocking and overlap compute");
    case APPLIED_JAX_JIT:
      return N_("The step already runs under jax.jit: look for recompilations (jax.config.update(\"jax_log_compiles\", True)), Python work between the jitted calls, and functions jitted apart that could be one");
    case APPLIED_TF_FUNCTION:
      return N_("The step already runs in tf.function: look for retracing (a fixed input_signature, reduce_retracing=True) and for eager work outside it");
    default:
      return NULL;
    }
}

/* Replaces the device word in a fix for an all-TPU capture. Where kinds are
 * mixed the fixes keep "GPU": they are the GPUs' fixes. */
static char *
device_fix (Ctx        *ctx,
            const char *fix)
{
  g_auto(GStrv) parts = NULL;

  if (!cp_analysis_devices_are_tpu (ctx->self) || strstr (fix, "GPU") == NULL)
    return g_strdup (fix);
  parts = g_strsplit (fix, "GPU", -1);
  return g_strjoinv ("TPU", parts);
}

typedef struct
{
  const CpRule *rule;
  CpFinding    *finding;
  CpIntervals  *stake;      /* the time the finding accounts for */
  gint64        stake_time;
  gboolean      demoted;
} Result;

static double
percent_of_windows (Ctx    *ctx,
                    gint64  t)
{
  return ctx->self->window_time > 0 ? 100.0 * (double) t / (double) ctx->self->window_time : 0.0;
}

static gint64
per_window (Ctx    *ctx,
            gint64  t)
{
  guint n = ctx->self->windows->len;

  return n > 0 ? t / n : t;
}

static CpFinding *
new_finding (Ctx          *ctx,
             const CpRule *rule,
             CpSeverity    severity)
{
  const char *title = _(rule->title);
  CpFinding *f;

  /* On a TPU the symptoms say what the device is. */
  if (cp_analysis_devices_are_tpu (ctx->self))
    {
      if (g_str_equal (rule->id, "low-utilization"))
        title = _("Low TPU utilisation");
      else if (g_str_equal (rule->id, "gpu-gaps"))
        title = _("Long TPU gaps");
    }
  f = cp_finding_new (rule->id, title, severity);

  /* Evidence per step and lane, so that F8 goes step by step; long gaps
   * stay one range each. */
  if (!g_str_equal (rule->id, "gpu-gaps"))
    cp_finding_set_evidence_windows (f, (const CpInterval *) ctx->self->windows->data, ctx->self->windows->len);

  cp_finding_set_source (f, _(rule->source));
  for (guint k = 0; k < CP_N_FRAMEWORKS; k++)
    {
      const char * const *src = rule->fixes[k];
      g_autoptr(GPtrArray) tr = g_ptr_array_new_with_free_func (g_free);
      guint replaced = 0;

      for (guint i = 0; src != NULL && src[i] != NULL; i++)
        {
          guint tech = fix_technique (src[i]);

          /* A fix the capture already applies: what to look at in it
           * instead, once. */
          if (tech != 0 && (ctx->applied & tech))
            {
              if (!(replaced & tech))
                g_ptr_array_add (tr, device_fix (ctx, _(applied_fix (tech))));
              replaced |= tech;
              continue;
            }
          g_ptr_array_add (tr, device_fix (ctx, _(src[i])));
        }
      g_ptr_array_add (tr, NULL);
      cp_finding_set_fixes (f, (CpFramework) k, (const char * const *) tr->pdata);
    }
  return f;
}

/* The rule's metric as the first figure, with its thresholds. */
static void
add_metric (CpFinding    *f,
            const CpRule *rule,
            const char   *id,
            double        value)
{
  cp_finding_add_figure (f, id, _(rule->metric), value, rule->unit,
                         cp_compare_to_string (rule->compare), rule->moderate, rule->high);
}

static char *
format_value (double      value,
              const char *unit)
{
  if (g_strcmp0 (unit, "%") == 0)
    return g_strdup_printf ("%.1f%%", value);
  if (g_strcmp0 (unit, "ratio") == 0)
    return g_strdup_printf ("%.2f", value);
  if (g_strcmp0 (unit, "ms") == 0)
    return g_strdup_printf ("%.0f ms", value);
  return g_strdup_printf ("%.0f", value);
}

/* "lead Measured: 23.4% (moderate at >= 5%, high at >= 20%). Up to 41 ms per step." */
static void
set_summary (Ctx          *ctx,
             CpFinding    *f,
             const CpRule *rule,
             const char   *lead,
             double        value)
{
  g_autoptr(GString) s = g_string_new (lead);
  g_autofree char *v = format_value (value, rule->unit);
  const char *cmp = cp_compare_to_string (rule->compare);

  g_string_append_c (s, ' ');
  if (!isnan (rule->moderate) && !isnan (rule->high))
    {
      g_autofree char *m = format_value (rule->moderate, rule->unit);
      g_autofree char *h = format_value (rule->high, rule->unit);

      /* Translators: "Measured: 23.4% (moderate at >= 5%, high at >= 20%)." */
      g_string_append_printf (s, _("Measured: %s (moderate at %s %s, high at %s %s)."), v, cmp, m, cmp, h);
    }
  else if (!isnan (rule->moderate))
    {
      g_autofree char *m = format_value (rule->moderate, rule->unit);

      g_string_append_printf (s, _("Measured: %s (flagged at %s %s)."), v, cmp, m);
    }
  else
    g_string_append_printf (s, _("Measured: %s."), v);

  if (cp_finding_get_time_at_stake (f) > 0)
    {
      g_autofree char *d = cp_format_ns (cp_finding_get_time_at_stake_per_step (f));

      g_string_append_c (s, ' ');
      if (ctx->self->step_source != CP_STEPS_NONE)
        g_string_append_printf (s, _("Up to %s per step."), d);
      else
        {
          g_autofree char *total = cp_format_ns (cp_finding_get_time_at_stake (f));

          g_string_append_printf (s, _("Up to %s in the capture."), total);
        }
    }
  cp_finding_set_summary (f, s->str);
}

/* Evidence: the parts of a lane's category set inside target. */
typedef struct
{
  CpFinding *finding;
  guint      lane;
} EvidenceSink;

static void
add_one_evidence (gint64   start,
                  gint64   end,
                  gpointer user_data)
{
  EvidenceSink *sink = user_data;

  cp_finding_add_evidence (sink->finding, sink->lane, start, end);
}

static void
add_category_evidence (Ctx               *ctx,
                       CpFinding         *f,
                       CpTimeCategory     cat,
                       const CpIntervals *target)
{
  CpAnalysis *self = ctx->self;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      EvidenceSink sink = { f, l };

      if (self->lanes[l].cat[cat] != NULL)
        cp_intervals_foreach_intersection (self->lanes[l].cat[cat], target, add_one_evidence, &sink);
    }
}

static void
add_set_evidence (CpFinding         *f,
                  guint              lane,
                  const CpIntervals *set)
{
  for (gsize k = 0; k < set->n; k++)
    cp_finding_add_evidence (f, lane, set->v[k].start, set->v[k].end);
}

static CpIntervals *
windowed (Ctx               *ctx,
          const CpIntervals *set)
{
  return cp_intervals_intersect (set, ctx->self->window_set);
}

/* A finding for an exposed-category metric (input, transfers, comm, launch). */
static CpFinding *
eval_category (Ctx            *ctx,
               const CpRule   *rule,
               CpTimeCategory  cat,
               const char     *figure_id,
               const char     *lead,
               CpIntervals   **stake)
{
  g_autoptr(CpIntervals) own = cp_intervals_ref (ctx->self->exposed[cat]);
  gint64 t = cp_intervals_length (own);
  double value = percent_of_windows (ctx, t);
  CpSeverity sev;
  CpFinding *f;

  if (t == 0 || !cp_rule_grade (rule, value, &sev))
    return NULL;

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, figure_id, value);
  add_category_evidence (ctx, f, cat, own);
  cp_finding_set_time_at_stake (f, t, per_window (ctx, t));
  set_summary (ctx, f, rule, lead, value);
  *stake = g_steal_pointer (&own);
  return f;
}

static CpFinding *
eval_pageable (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(CpIntervals) all = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  g_autoptr(GArray) ev = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  guint count = 0;
  gint64 bytes = 0, raw_time = 0, t;
  double value;
  CpSeverity sev = CP_SEVERITY_INFO;
  CpFinding *f;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].device_index < 0)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
          CpEvidence e;

          if (!((s->flags[i] & CP_SLICE_PAGEABLE) || (nf & CP_NAME_PAGEABLE)))
            continue;
          if (_cp_analysis_slice_class (self, l, i) < 0)
            continue;
          count++;
          raw_time = cp_sat_add (raw_time, cp_slices_get_dur (s, i));
          if (cp_slices_get_gpu (s, i))
            {
              const CpGpuInfo *g = _cp_analysis_gpu_info (self, l, i);

              if (g != NULL && g->bytes > 0)
                bytes = cp_sat_add (bytes, g->bytes);
            }
          cp_intervals_add (all, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
          e.lane = l;
          e.start = cp_slices_get_start (s, i);
          e.end = cp_slices_get_end (s, i);
          g_array_append_val (ev, e);
        }
    }
  if (count == 0)
    return NULL;

  cp_intervals_normalize (all);
  own = windowed (ctx, all);
  t = cp_intervals_length (own);
  value = percent_of_windows (ctx, t);
  cp_rule_grade (rule, value, &sev);

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "pageable_percent", value);
  cp_finding_add_figure (f, "pageable_copies", _("Copies with pageable host memory"), count, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "pageable_time_ns", _("Time in those copies"), raw_time, "ns", NULL, NAN, NAN);
  if (bytes > 0)
    cp_finding_add_figure (f, "pageable_bytes", _("Bytes copied"), bytes, "bytes", NULL, NAN, NAN);
  for (guint k = 0; k < ev->len; k++)
    {
      const CpEvidence *e = &g_array_index (ev, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  cp_finding_set_time_at_stake (f, t, per_window (ctx, t));
  set_summary (ctx, f, rule,
               _("Copies to or from pageable host memory are staged through a bounce buffer and block the host thread."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

static CpFinding *
eval_sync (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpIntervals *ops = self->all_ops;
  g_autoptr(CpIntervals) stall = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  g_autoptr(CpIntervals) input = NULL;
  g_autoptr(GArray) calls = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  guint n_calls = 0;
  gint64 call_time = 0, t;
  double value;
  CpSeverity sev = CP_SEVERITY_INFO;
  CpFinding *f;

  if (!ctx->has_device || self->all_ops->n == 0)
    return NULL;

  input = cp_intervals_union (self->exposed[CP_TIME_INPUT_WAIT], self->exposed[CP_TIME_HOST_TO_DEVICE]);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpIntervals *sync = self->lanes[l].sync;

      if (sync == NULL)
        continue;
      for (gsize k = 0; k < sync->n; k++)
        {
          const CpInterval *c = &sync->v[k];
          gsize gi;
          gboolean stalled = FALSE;

          n_calls++;
          call_time = cp_sat_add (call_time, c->end - c->start);
          /* Gaps that open while the host is blocked in this call: the
           * device drained its queue because the host waited for it. The
           * gap after op k is [end of k, start of k + 1). */
          for (gi = cp_intervals_first_ending_after (ops, c->start - 1);
               gi + 1 < ops->n && ops->v[gi].end <= c->end; gi++)
            {
              cp_intervals_add (stall, ops->v[gi].end, ops->v[gi + 1].start);
              stalled = TRUE;
            }
          if (stalled)
            {
              CpEvidence e = { l, c->start, c->end };

              g_array_append_val (calls, e);
            }
        }
    }
  if (calls->len == 0)
    return NULL;

  cp_intervals_normalize (stall);
  {
    g_autoptr(CpIntervals) w = windowed (ctx, stall);

    own = cp_intervals_subtract (w, input);
  }
  t = cp_intervals_length (own);
  if (t == 0)
    return NULL;
  value = percent_of_windows (ctx, t);
  cp_rule_grade (rule, value, &sev);

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "sync_stall_percent", value);
  cp_finding_add_figure (f, "sync_calls", _("Blocking synchronisation calls"), n_calls, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "stalling_calls", _("Calls after which the device went idle"), calls->len, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "sync_time_ns", _("Host time blocked in those calls"), call_time, "ns", NULL, NAN, NAN);
  for (guint k = 0; k < calls->len; k++)
    {
      const CpEvidence *e = &g_array_index (calls, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  /* The idle time itself, on the device's main lane. */
  if (self->devices->len > 0)
    {
      guint lane = g_array_index (self->devices, CpDeviceStats, 0).lane;

      if (lane != G_MAXUINT)
        add_set_evidence (f, lane, own);
    }
  cp_finding_set_time_at_stake (f, t, per_window (ctx, t));
  set_summary (ctx, f, rule,
               _("The host waits for the device to finish, so no work is queued when it does: the device idles until the host launches again."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

static CpFinding *
eval_input (Ctx           *ctx,
            const CpRule  *rule,
            CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = eval_category (ctx, rule, CP_TIME_INPUT_WAIT, "input_wait_percent",
                                _("The device waits while the host loads the next batch."), stake);
  guint slow = 0, calls = 0;
  gboolean single = FALSE;
  double xprof_input;

  if (f == NULL)
    return NULL;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD || self->lanes[l].cat[CP_TIME_INPUT_WAIT] == NULL)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));

          if (!(nf & CP_NAME_INPUT_WAIT))
            continue;
          calls++;
          /* XProf X12: a root GetNext over 50 µs is slow. */
          if (cp_slices_get_dur (s, i) > 50 * CP_NS_PER_US)
            slow++;
          if (nf & CP_NAME_LOADER_SINGLE)
            single = TRUE;
        }
    }
  /* All the data loading, beside the part with the device idle (the
   * metric): the share the TensorBoard plugin's users know. */
  {
    g_autoptr(CpIntervals) loading = windowed (ctx, self->cat_union[CP_TIME_INPUT_WAIT]);
    double loading_percent = percent_of_windows (ctx, cp_intervals_length (loading));
    g_autofree char *line = NULL;
    g_autofree char *summary = NULL;

    /* xgettext:no-c-format */
    cp_finding_add_figure (f, "loading_percent", _("Data loading in all (host time in the DataLoader or input iterator), % of step time"),
                           loading_percent, "%", NULL, NAN, NAN);
    line = self->step_source != CP_STEPS_NONE
           ? g_strdup_printf (_("Data loading takes %.1f%% of the step time in all."), loading_percent)
           : g_strdup_printf (_("Data loading takes %.1f%% of the capture in all."), loading_percent);
    summary = g_strconcat (cp_finding_get_summary (f), " ", line, NULL);
    cp_finding_set_summary (f, summary);
  }
  xprof_input = self->summary[CP_TIME_INPUT_WAIT].percent + self->summary[CP_TIME_HOST_TO_DEVICE].percent;
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "xprof_input_percent", _("Input as XProf counts it (data loading + host-to-device), % of step time"),
                         xprof_input, "%", ">=", 5, 20);
  cp_finding_add_figure (f, "next_batch_calls", _("Next-batch calls"), calls, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "slow_next_batch_calls", _("Next-batch calls over 50 µs (XProf slow tf.data)"),
                         slow, "count", ">", 0, NAN);
  if (single)
    {
      g_autofree char *summary = g_strconcat (cp_finding_get_summary (f), " ",
                                              _("The PyTorch DataLoader runs with num_workers=0, in the training process."),
                                              NULL);

      cp_finding_set_summary (f, summary);
    }
  return f;
}

static CpFinding *
eval_pipeline (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpPipelineStage *slow;
  const char *stage_fix;
  CpFinding *f;
  guint n_steps = MAX (self->windows->len, 1);
  g_autoptr(GString) s = NULL;

  _cp_analysis_input_pipeline (self);
  if (self->pipeline->len == 0)
    return NULL;
  f = eval_category (ctx, rule, CP_TIME_INPUT_WAIT, "input_wait_percent",
                     _("The device waits for the next batch from the tf.data input pipeline."), stake);
  if (f == NULL)
    return NULL;
  slow = &g_array_index (self->pipeline, CpPipelineStage, 0);
  cp_finding_add_figure (f, "pipeline_stages", _("Input pipeline stages"), self->pipeline->len, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "slowest_stage_self_ns", _("Self time of the slowest stage, per step"),
                         (double) (slow->self_time / n_steps), "ns", NULL, NAN, NAN);
  cp_finding_add_figure (f, "prefetch", _("Prefetching in place (1 yes, 0 no)"), self->pipeline_prefetch ? 1 : 0,
                         "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "next_batch_calls", _("Next-batch calls"), self->pipeline_get_next, "count", NULL, NAN, NAN);

  s = g_string_new (cp_finding_get_summary (f));
  {
    g_autofree char *d = cp_format_ns (slow->self_time / n_steps);

    g_string_append_c (s, ' ');
    /* Translators: "The slowest stage is Map (15.2 ms per step of its own time)." */
    g_string_append_printf (s, _("The slowest stage is %s (%s per step of its own time)."), slow->stage, d);
  }
  g_string_append_c (s, ' ');
  g_string_append (s, self->pipeline_prefetch ? _("Prefetching is in place.") : _("The pipeline does not prefetch."));
  cp_finding_set_summary (f, s->str);

  /* TensorFlow and JAX (tf.data): prefetch first when missing, then the
   * fix for the stage at fault, then caching. */
  stage_fix = pipeline_stage_fix (slow->stage);
  {
    g_autoptr(GPtrArray) fixes = g_ptr_array_new_with_free_func (g_free);

    if (!self->pipeline_prefetch)
      g_ptr_array_add (fixes, g_strdup (_(fix_pipeline_tf[0])));
    if (stage_fix != NULL)
      g_ptr_array_add (fixes, g_strdup (_(stage_fix)));
    else
      /* Translators: %s is a tf.data stage name such as "Shard". */
      g_ptr_array_add (fixes, g_strdup_printf (_("The slowest stage is %s: parallelise it (num_parallel_calls=tf.data.AUTOTUNE), cache() its output or move it offline"),
                                               slow->stage));
    g_ptr_array_add (fixes, g_strdup (_(fix_pipeline_tf[2])));
    g_ptr_array_add (fixes, NULL);
    cp_finding_set_fixes (f, CP_FRAMEWORK_TENSORFLOW, (const char * const *) fixes->pdata);
    cp_finding_set_fixes (f, CP_FRAMEWORK_JAX, (const char * const *) fixes->pdata);
  }
  return f;
}

static CpFinding *
eval_loader_single (Ctx           *ctx,
                    const CpRule  *rule,
                    CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(GPtrArray) lane_sets = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_intervals_free);
  g_autoptr(GArray) lane_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(CpIntervals) loader = NULL;
  g_autoptr(CpIntervals) device = NULL;
  g_autoptr(CpIntervals) runtime = NULL;
  CpIntervals *roles[3];
  CpIntervals *claimed_sets[4] = { NULL, };
  gint64 claimed[4];
  double value;
  CpSeverity sev = CP_SEVERITY_INFO;
  CpFinding *f;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;
      CpIntervals *set = NULL;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (cp_name_cache_lookup (self->names, cp_slices_get_name (s, i)) & CP_NAME_LOADER_SINGLE)
          {
            if (set == NULL)
              set = cp_intervals_new ();
            cp_intervals_add_sorted (set, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
          }
      if (set != NULL)
        {
          g_ptr_array_add (lane_sets, set);
          g_array_append_val (lane_ids, l);
        }
    }
  if (lane_sets->len == 0)
    return NULL;

  /* TB claiming: Kernel, Memcpy, Memset, Communication, Runtime, then DataLoader. */
  loader = cp_intervals_union_many ((CpIntervals * const *) lane_sets->pdata, lane_sets->len);
  {
    CpIntervals *dev_sets[] = {
      self->cat_union[CP_TIME_COMPUTE_16], self->cat_union[CP_TIME_COMPUTE_32],
      self->cat_union[CP_TIME_DEVICE_TO_HOST], self->cat_union[CP_TIME_DEVICE_TO_DEVICE],
      self->cat_union[CP_TIME_HOST_TO_DEVICE], self->cat_union[CP_TIME_OTHER],
      self->cat_union[CP_TIME_COLLECTIVES], self->cat_union[CP_TIME_ASYNC_WAIT],
    };
    CpIntervals *rt_sets[] = { self->cat_union[CP_TIME_LAUNCH], self->cat_union[CP_TIME_RUNTIME] };

    device = cp_intervals_union_many (dev_sets, G_N_ELEMENTS (dev_sets));
    runtime = cp_intervals_union_many (rt_sets, G_N_ELEMENTS (rt_sets));
  }
  roles[0] = device;
  roles[1] = runtime;
  roles[2] = loader;
  {
    /* Claim inside each window, summing. */
    g_autoptr(CpIntervals) total_claim = cp_intervals_new ();

    for (guint w = 0; w < self->windows->len; w++)
      {
        const CpInterval *win = &g_array_index (self->windows, CpInterval, w);

        cp_claim_sequential (roles, 3, win->start, win->end, claimed, claimed_sets);
        for (gsize k = 0; k < claimed_sets[2]->n; k++)
          cp_intervals_add_sorted (total_claim, claimed_sets[2]->v[k].start, claimed_sets[2]->v[k].end);
        for (guint k = 0; k < 4; k++)
          g_clear_pointer (&claimed_sets[k], cp_intervals_free);
      }
    *stake = g_steal_pointer (&total_claim);
  }

  value = self->window_time > 0 ? (double) cp_intervals_length (*stake) / self->window_time : 0.0;
  cp_rule_grade (rule, value, &sev);
  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "dataloader_ratio", value);
  for (guint k = 0; k < lane_sets->len; k++)
    {
      g_autoptr(CpIntervals) part = cp_intervals_intersect (g_ptr_array_index (lane_sets, k), *stake);

      if (part->n > 0)
        add_set_evidence (f, g_array_index (lane_ids, guint, k), part);
      else
        add_set_evidence (f, g_array_index (lane_ids, guint, k), g_ptr_array_index (lane_sets, k));
    }
  cp_finding_set_time_at_stake (f, cp_intervals_length (*stake), per_window (ctx, cp_intervals_length (*stake)));
  set_summary (ctx, f, rule,
               _("The DataLoader runs with num_workers=0: batches are loaded in the training process, one after the other."),
               value);
  return f;
}

static CpFinding *
eval_comm (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = eval_category (ctx, rule, CP_TIME_COLLECTIVES, "exposed_comm_percent",
                                _("Collective communication runs while the device does not compute."), stake);
  gint64 comm = 0, overlap = 0;

  if (f == NULL)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      comm = cp_sat_add (comm, dev->comm_time);
      overlap = cp_sat_add (overlap, dev->comm_overlap);
    }
  if (self->devices->len > 0 && self->window_time > 0)
    cp_finding_add_figure (f, "comm_ratio", _("Collective time / step time, mean over devices (TensorBoard plugin)"),
                           (double) comm / self->devices->len / self->window_time, "ratio", ">", 0.10, NAN);
  if (comm > 0)
    cp_finding_add_figure (f, "comm_overlap_ratio", _("Collective time overlapped by compute (HTA)"),
                           (double) overlap / comm, "ratio", NULL, NAN, NAN);
  return f;
}

static CpFinding *
eval_overlap (Ctx           *ctx,
              const CpRule  *rule,
              CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(CpIntervals) exposed = cp_intervals_new ();
  gint64 comm = 0, overlap = 0, max_comm = 0;
  double ratio;
  CpSeverity sev;
  CpFinding *f;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpDeviceSets *sets = &self->device_sets[d];
      g_autoptr(CpIntervals) w = NULL;
      g_autoptr(CpIntervals) alone = NULL;
      CpIntervals *merged;

      comm = cp_sat_add (comm, dev->comm_time);
      overlap = cp_sat_add (overlap, dev->comm_overlap);
      max_comm = MAX (max_comm, dev->comm_time);
      w = windowed (ctx, sets->comm);
      alone = cp_intervals_subtract (w, sets->compute);
      merged = cp_intervals_union (exposed, alone);
      cp_intervals_free (exposed);
      exposed = merged;
    }
  /* Only when communication matters: >= 3% of step time on some device. */
  if (comm == 0 || percent_of_windows (ctx, max_comm) < 3.0)
    return NULL;
  ratio = (double) overlap / (double) comm;
  if (!cp_rule_grade (rule, ratio, &sev))
    return NULL;

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "comm_overlap_ratio", ratio);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "comm_percent", _("Collective time, % of step time (busiest device)"),
                         percent_of_windows (ctx, max_comm), "%", ">=", 3, NAN);
  add_category_evidence (ctx, f, CP_TIME_COLLECTIVES, exposed);
  cp_finding_set_time_at_stake (f, cp_intervals_length (exposed), per_window (ctx, cp_intervals_length (exposed)));
  set_summary (ctx, f, rule, _("Most collective time runs with no compute beside it."), ratio);
  *stake = g_steal_pointer (&exposed);
  return f;
}

static CpFinding *
eval_launch (Ctx           *ctx,
             const CpRule  *rule,
             CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = eval_category (ctx, rule, CP_TIME_LAUNCH, "launch_percent",
                                _("The device idles while the host launches kernels: kernels are too short to hide the launch cost."),
                                stake);
  guint n_kernels = 0, n_launched = 0, n_short = 0, n_small = 0, n_delay = 0;
  gint64 kernel_time = 0, small_time = 0, delay_total = 0;

  if (f == NULL)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      n_kernels += dev->n_kernels;
      kernel_time = cp_sat_add (kernel_time, dev->kernel_time);
      n_launched += dev->n_launched;
      n_short += dev->n_short;
      n_small += dev->n_kernels_under_10us;
      small_time = cp_sat_add (small_time, dev->time_under_10us);
      n_delay += dev->n_delay_outliers;
      delay_total = cp_sat_add (delay_total, dev->launch_delay_total);
    }
  cp_finding_add_figure (f, "kernels_per_step", _("Kernels per step"),
                         self->windows->len ? (double) n_kernels / self->windows->len : n_kernels,
                         "count", NULL, NAN, NAN);
  if (n_launched > 0)
    {
      cp_finding_add_figure (f, "short_kernel_share", _("Kernels shorter than their launch call (HTA: launch <= 50 µs), share"),
                             (double) n_short / n_launched, "ratio", NULL, NAN, NAN);
      cp_finding_add_figure (f, "mean_launch_delay_ns", _("Mean launch delay"),
                             (double) delay_total / n_launched, "ns", NULL, NAN, NAN);
      cp_finding_add_figure (f, "launch_delay_outliers", _("Launch delays over 100 µs (HTA)"),
                             n_delay, "count", ">", 0, NAN);
    }
  if (n_kernels > 0)
    {
      cp_finding_add_figure (f, "small_kernel_share", _("Kernels under 10 µs, share of kernels"),
                             (double) n_small / n_kernels, "ratio", NULL, NAN, NAN);
      cp_finding_add_figure (f, "small_kernel_time_share", _("Kernels under 10 µs, share of kernel time"),
                             kernel_time > 0 ? (double) small_time / kernel_time : 0.0, "ratio", NULL, NAN, NAN);
    }
  return f;
}

static CpFinding *
eval_host (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpIntervals *parts[] = {
    self->exposed[CP_TIME_HOST_COMPUTE], self->exposed[CP_TIME_RUNTIME], self->exposed[CP_TIME_IDLE],
  };
  g_autoptr(CpIntervals) all = NULL;
  g_autoptr(CpIntervals) own = NULL;
  gint64 t;
  double value;
  CpSeverity sev;
  CpFinding *f;
  guint idle_lane = G_MAXUINT;

  if (!ctx->has_device || !ctx->has_host)
    return NULL;
  all = cp_intervals_union_many (parts, G_N_ELEMENTS (parts));
  own = g_steal_pointer (&all);
  t = cp_intervals_length (own);
  value = percent_of_windows (ctx, t);
  if (t == 0 || !cp_rule_grade (rule, value, &sev))
    return NULL;

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "host_overhead_percent", value);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "host_compute_percent", _("Host compute while the device is idle, % of step time"),
                         self->summary[CP_TIME_HOST_COMPUTE].percent, "%", NULL, NAN, NAN);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "runtime_percent", _("Runtime calls while the device is idle, % of step time"),
                         self->summary[CP_TIME_RUNTIME].percent, "%", NULL, NAN, NAN);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "unrecorded_percent", _("Nothing recorded on host or device (XProf all-other), % of step time"),
                         self->summary[CP_TIME_IDLE].percent, "%", ">=", 3, 15);
  add_category_evidence (ctx, f, CP_TIME_HOST_COMPUTE, own);
  add_category_evidence (ctx, f, CP_TIME_RUNTIME, own);
  /* Unrecorded time: on the lane of the step markers, else the device lane. */
  if (self->steps->len > 0)
    idle_lane = g_array_index (self->steps, CpStepStats, 0).marker.lane;
  if (idle_lane >= self->n_lanes && self->devices->len > 0)
    idle_lane = g_array_index (self->devices, CpDeviceStats, 0).lane;
  if (idle_lane < self->n_lanes)
    add_set_evidence (f, idle_lane, self->exposed[CP_TIME_IDLE]);
  cp_finding_set_time_at_stake (f, t, per_window (ctx, t));
  set_summary (ctx, f, rule,
               _("The device idles while the host runs framework and Python code, or nothing is recorded at all."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

static CpFinding *
eval_precision (Ctx           *ctx,
                const CpRule  *rule,
                CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  gint64 c16 = self->summary[CP_TIME_COMPUTE_16].total;
  gint64 c32 = self->summary[CP_TIME_COMPUTE_32].total;
  g_autoptr(CpIntervals) set = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  double pct16, value;
  gint64 tc_time = 0, eligible_in_w;
  CpSeverity sev;
  CpFinding *f;
  gboolean old_gpu = FALSE;

  if (self->compute_kernel_time == 0 || self->eligible_fp32_time == 0 || c16 + c32 == 0)
    return NULL;
  /* XProf X6: pct16 over the flattened device compute time. */
  pct16 = 100.0 * (double) c16 / (double) (c16 + c32);
  if (!(pct16 < 10.0))
    return NULL;

  for (guint k = 0; k < self->eligible_fp32->len; k++)
    {
      CpSliceRef r = g_array_index (self->eligible_fp32, CpSliceRef, k);
      const CpSlices *s = self->lanes[r.lane].slices;

      cp_intervals_add (set, cp_slices_get_start (s, r.index), cp_slices_get_end (s, r.index));
    }
  cp_intervals_normalize (set);
  own = windowed (ctx, set);
  eligible_in_w = cp_intervals_length (own);
  value = 100.0 * (double) self->eligible_fp32_time / (double) self->compute_kernel_time;
  if (!cp_rule_grade (rule, value, &sev))
    return NULL;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpDevice *info = cp_trace_find_device (self->trace, dev->device);

      tc_time = cp_sat_add (tc_time, dev->tensor_core_time);
      if (info != NULL && info->compute_major >= 0 && info->compute_major < 7)
        old_gpu = TRUE;
    }
  /* P6 needs compute capability >= 7: without tensor cores, only a note. */
  if (old_gpu)
    sev = CP_SEVERITY_INFO;

  f = new_finding (ctx, rule, sev);
  /* On a TPU the MXU is the tensor core, bf16 its native precision; TF32
   * does not exist there. */
  if (cp_analysis_devices_are_tpu (self))
    {
      const char * const *lists[] = { fix_amp_tpu_jax, fix_amp_tpu_tf };
      const CpFramework fws[] = { CP_FRAMEWORK_JAX, CP_FRAMEWORK_TENSORFLOW };

      for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
        {
          g_autoptr(GPtrArray) tr = g_ptr_array_new ();

          for (guint i = 0; lists[k][i] != NULL; i++)
            g_ptr_array_add (tr, (gpointer) _(lists[k][i]));
          g_ptr_array_add (tr, NULL);
          cp_finding_set_fixes (f, fws[k], (const char * const *) tr->pdata);
        }
    }
  add_metric (f, rule, "fp32_eligible_percent", value);
  cp_finding_add_figure (f, "half_percent", _("16-bit share of device compute time (XProf)"),
                         pct16, "%", "<", 10, NAN);
  if (!cp_analysis_devices_are_tpu (self))
    cp_finding_add_figure (f, "tensor_core_ratio", _("Kernel time on tensor cores (TensorBoard plugin)"),
                         self->kernel_time > 0 ? (double) tc_time / self->kernel_time : 0.0, "ratio", NULL, NAN, NAN);
  cp_finding_add_figure (f, "eligible_ratio",
                         cp_analysis_devices_are_tpu (self) ? _("XLA op time of dots and convolutions (MXU work)")
                                                            : _("Kernel time of tensor-core-eligible work"),
                         self->kernel_time > 0 ? (double) self->eligible_kernel_time / self->kernel_time : 0.0,
                         "ratio", ">", 0, NAN);
  for (guint k = 0; k < self->eligible_fp32->len; k++)
    {
      CpSliceRef r = g_array_index (self->eligible_fp32, CpSliceRef, k);
      const CpSlices *s = self->lanes[r.lane].slices;

      cp_finding_add_evidence (f, r.lane, cp_slices_get_start (s, r.index), cp_slices_get_end (s, r.index));
    }
  /* Tensor cores run these at least twice as fast: half the time is at stake. */
  cp_finding_set_time_at_stake (f, eligible_in_w / 2, per_window (ctx, eligible_in_w / 2));
  set_summary (ctx, f, rule,
               cp_analysis_devices_are_tpu (self)
               ? _("Dots and convolutions run in f32: the TPU's MXU multiplies bf16 natively and takes several passes for f32.")
               : old_gpu ? _("Matmuls and convolutions run in 32-bit without tensor cores; this GPU has none (compute capability < 7).")
                         : _("Matmuls and convolutions run in 32-bit without tensor cores."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

/* The kernels that matter (each >= 1% of compute time) that reach under
 * 30% of their roofline. At stake: what reaching 30% would save,
 * t · (1 - p / 30) each. */
#define ROOFLINE_MIN_SHARE   0.01
#define ROOFLINE_FAR_PERCENT 30.0
#define ROOFLINE_MAX_EVIDENCE 2000

static CpFinding *
eval_roofline (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  guint n, n_far = 0, n_known = 0, n_evidence = 0;
  const CpRooflineStats *st = cp_analysis_get_roofline (self, FALSE, &n);
  gint64 far_time = 0, known_time = 0;
  double saved = 0, worst = NAN;
  const CpRooflineStats *worst_st = NULL;
  g_autoptr(CpIntervals) set = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  g_autofree guint8 *far = NULL;
  double value;
  CpSeverity sev;
  CpFinding *f;

  if (n == 0 || self->compute_kernel_time <= 0)
    return NULL;
  far = g_new0 (guint8, n);
  for (guint k = 0; k < n; k++)
    {
      if (isnan (st[k].roofline_percent))
        continue;
      known_time = cp_sat_add (known_time, st[k].time);
      n_known++;
      if ((double) st[k].time < ROOFLINE_MIN_SHARE * (double) self->compute_kernel_time ||
          !(st[k].roofline_percent < ROOFLINE_FAR_PERCENT))
        continue;
      far[k] = 1;
      n_far++;
      far_time = cp_sat_add (far_time, st[k].time);
      saved += (double) st[k].time * (1.0 - st[k].roofline_percent / ROOFLINE_FAR_PERCENT);
      if (worst_st == NULL || st[k].time > worst_st->time)
        worst_st = &st[k], worst = st[k].roofline_percent;
    }
  if (n_far == 0)
    return NULL;
  value = 100.0 * (double) far_time / (double) self->compute_kernel_time;
  if (!cp_rule_grade (rule, value, &sev))
    return NULL;

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "far_below_percent", value);
  cp_finding_add_figure (f, "kernels_far_below", _("Kernel names far below their roofline"),
                         n_far, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "largest_roofline_percent",
                         _("Roofline reached by the one with the most time, %"), worst, "%", "<",
                         ROOFLINE_FAR_PERCENT, NAN);
  cp_finding_add_figure (f, "modelled_percent", _("Compute time with known FLOPs, %"),
                         100.0 * (double) known_time / (double) self->compute_kernel_time, "%", NULL, NAN, NAN);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s = info->slices;

      if (info->kind != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          CpStr name = cp_slices_get_name (s, i);

          for (guint k = 0; k < n; k++)
            if (far[k] && st[k].name == name)
              {
                cp_intervals_add (set, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
                if (n_evidence < ROOFLINE_MAX_EVIDENCE)
                  {
                    cp_finding_add_evidence (f, l, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
                    n_evidence++;
                  }
                break;
              }
        }
    }
  cp_intervals_normalize (set);
  own = windowed (ctx, set);
  {
    gint64 in_w = cp_intervals_length (own);
    gint64 at_stake = far_time > 0 ? (gint64) ((double) in_w * saved / (double) far_time) : 0;

    cp_finding_set_time_at_stake (f, at_stake, per_window (ctx, at_stake));
  }
  {
    g_autofree char *lead = NULL;
    const char *worst_name = cp_trace_get_string (self->trace, worst_st->name);
    g_autofree char *cut = g_utf8_substring (worst_name, 0, 57);
    g_autofree char *shown = g_utf8_strlen (worst_name, -1) > 60 ? g_strconcat (cut, "…", NULL)
                                                                 : g_strdup (worst_name);

    lead = g_strdup_printf (worst_st->bound == CP_BOUND_MEMORY
                            ? _("Kernels run far below what the device allows; the largest, %s, reaches %.0f%% of its memory-bound roofline.")
                            : _("Kernels run far below what the device allows; the largest, %s, reaches %.0f%% of its compute roofline."),
                            shown, worst);
    set_summary (ctx, f, rule, lead, value);
  }
  *stake = g_steal_pointer (&own);
  return f;
}

static gboolean
is_memory_counter (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return strstr (lower, "memory") != NULL || strstr (lower, "allocated") != NULL ||
         strstr (lower, "reserved") != NULL || strstr (lower, "bytes_in_use") != NULL;
}

/* The device memory figures of one device on a finding: its peak, what
 * the allocator reserved and the device's size. */
static void
add_memory_figures (CpFinding           *f,
                    const CpMemoryStats *st)
{
  cp_finding_add_figure (f, "peak_allocated_bytes", _("Peak allocated memory"), (double) st->peak_allocated, "bytes", NULL, NAN, NAN);
  if (st->peak_reserved >= 0)
    cp_finding_add_figure (f, "peak_reserved_bytes", _("Peak reserved memory"), (double) st->peak_reserved, "bytes", NULL, NAN, NAN);
  if (st->capacity > 0)
    cp_finding_add_figure (f, "device_bytes", _("Device memory"), (double) st->capacity, "bytes", NULL, NAN, NAN);
}

/* What the allocator held at its highest: reserved when the capture says,
 * allocated otherwise. */
static gint64
memory_peak (const CpMemoryStats *st)
{
  return MAX (st->peak_allocated, st->peak_reserved);
}

static gint64
memory_peak_ts (const CpMemoryStats *st)
{
  return st->peak_reserved > st->peak_allocated ? st->peak_reserved_ts : st->peak_allocated_ts;
}

/* Evidence at a memory peak: the microsecond from it on the lane of the
 * allocation that reached it. */
static void
add_memory_evidence (Ctx                 *ctx,
                     CpFinding           *f,
                     const CpMemoryStats *st,
                     gint64               ts)
{
  cp_finding_add_evidence (f, st->peak_allocated_ref.lane, ts,
                           MAX (ts, MIN (ts + 1000, cp_trace_get_duration (ctx->self->trace))));
}

static CpFinding *
eval_memory (Ctx           *ctx,
             const CpRule  *rule,
             CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = NULL;
  const CpMemoryStats *mem;
  double worst = 0;
  gboolean any = FALSE;
  guint n_mem;

  _cp_analysis_memory (self);
  mem = cp_analysis_get_memory (self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      double ratio;
      CpSeverity sev;

      if (st->capacity <= 0 || !st->has_totals)
        continue;
      any = TRUE;
      ratio = memory_peak (st) / (double) st->capacity;
      if (!cp_rule_grade (rule, ratio, &sev))
        continue;
      if (f == NULL)
        f = new_finding (ctx, rule, sev);
      worst = MAX (worst, ratio);
      add_memory_evidence (ctx, f, st, memory_peak_ts (st));
      add_memory_figures (f, st);
    }

  /* Memory counters, for devices without allocator events. */
  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLane *lane = self->lanes[l].lane;
      const gint64 *ts;
      const double *values;
      guint n, peak_i = 0;
      gint ordinal;
      const CpDevice *dev;
      const CpProcess *p;
      double ratio;
      CpSeverity sev;

      if (self->lanes[l].kind != CP_LANE_COUNTER || !is_memory_counter (cp_lane_get_name (lane)))
        continue;
      ordinal = cp_lane_get_device (lane);
      p = cp_trace_get_process (self->trace, cp_lane_get_process (lane));
      if (ordinal < 0 && p != NULL)
        ordinal = p->device;
      dev = ordinal >= 0 ? cp_trace_find_device (self->trace, ordinal) : NULL;
      if (dev == NULL || dev->total_memory <= 0 ||
          cp_memory_find_track (cp_trace_get_memory_events (self->trace), 1, ordinal) != NULL)
        continue;
      n = cp_lane_get_counter (lane, &ts, &values);
      if (n == 0)
        continue;
      any = TRUE;
      for (guint i = 1; i < n; i++)
        if (values[i] > values[peak_i])
          peak_i = i;
      ratio = values[peak_i] / (double) dev->total_memory;
      if (!cp_rule_grade (rule, ratio, &sev))
        continue;
      if (f == NULL)
        f = new_finding (ctx, rule, sev);
      if (ratio > worst)
        worst = ratio;
      cp_finding_add_evidence (f, l, ts[peak_i], peak_i + 1 < n ? ts[peak_i + 1] : ts[peak_i]);
      cp_finding_add_figure (f, "peak_bytes", _("Peak device memory"), values[peak_i], "bytes", NULL, NAN, NAN);
      cp_finding_add_figure (f, "device_bytes", _("Device memory"), (double) dev->total_memory, "bytes", NULL, NAN, NAN);
    }
  if (!any)
    _cp_analysis_add_note (self, "%s", _("No device memory events or counters with a known device size: memory pressure and headroom were not checked"));
  if (f == NULL)
    return NULL;
  add_metric (f, rule, "peak_memory_ratio", worst);
  cp_finding_set_time_at_stake (f, 0, 0);
  set_summary (ctx, f, rule, _("Device memory peaks near its capacity, which limits the batch size and risks out-of-memory errors."), worst);
  *stake = cp_intervals_new ();
  return f;
}

static CpFinding *
eval_memory_headroom (Ctx           *ctx,
                      const CpRule  *rule,
                      CpIntervals  **stake)
{
  const CpMemoryStats *mem;
  CpFinding *f = NULL;
  double worst = 1, fits = 0;
  guint n_mem;

  _cp_analysis_memory (ctx->self);
  mem = cp_analysis_get_memory (ctx->self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      double ratio;
      CpSeverity sev;

      if (st->capacity <= 0 || !st->has_totals || memory_peak (st) <= 0)
        continue;
      ratio = memory_peak (st) / (double) st->capacity;
      if (!cp_rule_grade (rule, ratio, &sev))
        continue;
      if (f == NULL)
        f = new_finding (ctx, rule, sev);
      /* The device with the least room decides the batch. */
      if (fits == 0 || ratio > 1 - worst)
        {
          worst = 1 - ratio;
          fits = st->capacity / (double) memory_peak (st);
        }
      add_memory_evidence (ctx, f, st, memory_peak_ts (st));
      add_memory_figures (f, st);
    }
  if (f == NULL)
    return NULL;
  add_metric (f, rule, "peak_memory_ratio", 1 - worst);
  /* The plain ratio: it takes all memory as growing with the batch, so the
   * weights and optimizer state make it an upper bound. */
  cp_finding_add_figure (f, "batch_scale", _("Batch scale that fits (capacity / peak, an upper bound)"),
                         fits, "ratio", NULL, NAN, NAN);
  cp_finding_set_time_at_stake (f, 0, 0);
  {
    g_autofree char *lead =
      /* Translators: %.1f is how many times larger the batch could be, "3.2". */
      g_strdup_printf (_("Device memory peaks well under its capacity: a batch up to about %.1f times larger fits (capacity / peak, less what the weights and optimizer state take)."), fits);
    set_summary (ctx, f, rule, lead, 1 - worst);
  }
  *stake = cp_intervals_new ();
  return f;
}

static CpFinding *
eval_memory_fragmentation (Ctx           *ctx,
                           const CpRule  *rule,
                           CpIntervals  **stake)
{
  const CpMemoryStats *mem;
  CpFinding *f = NULL;
  double worst = 0;
  guint n_mem;

  _cp_analysis_memory (ctx->self);
  mem = cp_analysis_get_memory (ctx->self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      double unused;
      CpSeverity sev;

      /* Cached blocks only cost when the device is nearly full. */
      if (st->capacity <= 0 || !st->has_totals || st->peak_reserved <= 0 ||
          st->peak_reserved < 0.75 * st->capacity)
        continue;
      unused = (st->peak_reserved - st->allocated_at_reserved_peak) / (double) st->peak_reserved;
      if (!cp_rule_grade (rule, unused, &sev))
        continue;
      if (f == NULL)
        f = new_finding (ctx, rule, sev);
      worst = MAX (worst, unused);
      add_memory_evidence (ctx, f, st, st->peak_reserved_ts);
      add_memory_figures (f, st);
      cp_finding_add_figure (f, "allocated_at_reserved_peak_bytes", _("Allocated at the reserved peak"),
                             (double) st->allocated_at_reserved_peak, "bytes", NULL, NAN, NAN);
    }
  if (f == NULL)
    return NULL;
  add_metric (f, rule, "unused_reserved_ratio", worst);
  cp_finding_set_time_at_stake (f, 0, 0);
  set_summary (ctx, f, rule, _("The allocator reserves far more device memory than is allocated while the device is nearly full: its cached blocks are fragmented."), worst);
  *stake = cp_intervals_new ();
  return f;
}

static CpFinding *
eval_memory_leak (Ctx           *ctx,
                  const CpRule  *rule,
                  CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpMemoryStats *mem;
  const CpStepStats *steps = (const CpStepStats *) (void *) self->steps->data;
  CpFinding *f = NULL;
  double worst = 0;
  guint n_mem;

  _cp_analysis_memory (self);
  mem = cp_analysis_get_memory (self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      double pct;
      CpSeverity sev;

      /* Steady growth: at least three step ends, and higher after at least
       * three in four steps than after the one before. */
      if (st->n_step_end < 3 || st->growth <= 0 || st->peak_allocated <= 0 ||
          4 * st->n_grew < 3 * (st->n_step_end - 1))
        continue;
      pct = 100.0 * st->growth / (double) st->peak_allocated;
      if (!cp_rule_grade (rule, pct, &sev))
        continue;
      if (f == NULL)
        f = new_finding (ctx, rule, sev);
      worst = MAX (worst, pct);
      for (guint k = 0; k < self->steps->len; k++)
        cp_finding_add_evidence (f, st->peak_allocated_ref.lane, steps[k].start, steps[k].end);
      cp_finding_add_figure (f, "growth_bytes", _("Growth of allocated memory from the first to the last step end"),
                             (double) st->growth, "bytes", NULL, NAN, NAN);
      cp_finding_add_figure (f, "growth_per_step_bytes", _("Growth per step"),
                             st->growth / (double) (st->n_step_end - 1), "bytes", NULL, NAN, NAN);
      cp_finding_add_figure (f, "steps", _("Step ends compared"), st->n_step_end, "count", NULL, NAN, NAN);
      add_memory_figures (f, st);
    }
  if (f == NULL)
    return NULL;
  add_metric (f, rule, "growth_percent", worst);
  cp_finding_set_time_at_stake (f, 0, 0);
  set_summary (ctx, f, rule, _("Allocated device memory grows from step to step: something keeps tensors alive across steps, and the run will run out of memory."), worst);
  *stake = cp_intervals_new ();
  return f;
}

static CpFinding *
eval_dataparallel (Ctx           *ctx,
                   const CpRule  *rule,
                   CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(GArray) ev = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  guint used = 0;
  CpSeverity sev;
  CpFinding *f;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (cp_name_cache_lookup (self->names, cp_slices_get_name (s, i)) & CP_NAME_DATAPARALLEL)
          {
            CpEvidence e = { l, cp_slices_get_start (s, i), cp_slices_get_end (s, i) };

            g_array_append_val (ev, e);
          }
    }
  if (ev->len == 0)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    if (g_array_index (self->devices, CpDeviceStats, d).n_kernels > 0)
      used++;
  if (!cp_rule_grade (rule, used, &sev))
    return NULL;

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "devices_used", used);
  for (guint k = 0; k < ev->len; k++)
    {
      const CpEvidence *e = &g_array_index (ev, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  cp_finding_set_time_at_stake (f, 0, 0);
  set_summary (ctx, f, rule,
               _("torch.nn.DataParallel drives several GPUs from one process: it scatters inputs and replicates the model every step. The time at stake is not estimated."),
               used);
  *stake = cp_intervals_new ();
  return f;
}

static CpFinding *
eval_utilization (Ctx           *ctx,
                  const CpRule  *rule,
                  CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpDeviceStats *worst = NULL;
  guint worst_index = 0;
  g_autoptr(CpIntervals) idle = NULL;
  gboolean tpu = cp_analysis_devices_are_tpu (self);
  CpSeverity sev;
  CpFinding *f;

  if (!ctx->has_device)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      /* A device that only copies is not idle by compute. */
      if (dev->n_kernels == 0)
        continue;
      if (worst == NULL || dev->utilization < worst->utilization)
        {
          worst = dev;
          worst_index = d;
        }
    }
  if (worst == NULL || !cp_rule_grade (rule, worst->utilization, &sev))
    return NULL;

  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "utilization", worst->utilization);
  cp_finding_add_figure (f, "device", _("Device"), worst->device, "count", NULL, NAN, NAN);
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      g_autofree char *id = g_strdup_printf ("utilization_gpu%d", dev->device);
      g_autofree char *label = tpu ? g_strdup_printf (_("Utilisation of TPU %d"), dev->device)
                                   : g_strdup_printf (_("Utilisation of GPU %d"), dev->device);

      cp_finding_add_figure (f, id, label, dev->utilization, "ratio", "<", 0.5, NAN);
    }
  cp_finding_add_figure (f, "idle_host_wait_ns", _("Idle waiting for the host to launch (HTA)"), worst->idle_host_wait, "ns", NULL, NAN, NAN);
  cp_finding_add_figure (f, "idle_kernel_wait_ns", _("Idle between back-to-back kernels (HTA)"), worst->idle_kernel_wait, "ns", NULL, NAN, NAN);
  cp_finding_add_figure (f, "idle_other_ns", _("Other idle time (HTA)"), worst->idle_other, "ns", NULL, NAN, NAN);

  idle = cp_intervals_subtract (self->window_set, self->device_sets[worst_index].kernels);
  add_set_evidence (f, worst->lane, idle);
  cp_finding_set_time_at_stake (f, cp_intervals_length (idle), per_window (ctx, cp_intervals_length (idle)));
  set_summary (ctx, f, rule, tpu ? _("The TPU runs no XLA op for much of the step.")
                                 : _("The GPU runs no kernel for much of the step."), worst->utilization);
  *stake = g_steal_pointer (&idle);
  return f;
}

static CpFinding *
eval_gaps (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(CpIntervals) long_gaps = cp_intervals_new ();
  g_autoptr(GArray) ev = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  gint64 longest = 0;
  CpSeverity sev;
  CpFinding *f;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceSets *sets = &self->device_sets[d];
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpIntervals *ops = sets->ops;

      /* nsys scope: the device's own first start to last end; the gap after
       * op k is [end of k, start of k + 1). */
      for (gsize k = 0; k + 1 < ops->n; k++)
        {
          gint64 len = ops->v[k + 1].start - ops->v[k].end;

          longest = MAX (longest, len);
          if (passes (rule->compare, len / 1e6, rule->moderate))
            {
              CpEvidence e = { dev->lane, ops->v[k].end, ops->v[k + 1].start };

              g_array_append_val (ev, e);
              cp_intervals_add (long_gaps, ops->v[k].end, ops->v[k + 1].start);
            }
        }
    }
  if (ev->len == 0 || !cp_rule_grade (rule, longest / 1e6, &sev))
    return NULL;

  cp_intervals_normalize (long_gaps);
  f = new_finding (ctx, rule, sev);
  add_metric (f, rule, "longest_gap_ms", longest / 1e6);
  cp_finding_add_figure (f, "long_gaps", _("Gaps over the threshold"), ev->len, "count", NULL, NAN, NAN);
  for (guint k = 0; k < ev->len; k++)
    {
      const CpEvidence *e = &g_array_index (ev, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  cp_finding_set_time_at_stake (f, cp_intervals_length (long_gaps), per_window (ctx, cp_intervals_length (long_gaps)));
  set_summary (ctx, f, rule, cp_analysis_devices_are_tpu (ctx->self)
                             ? _("The TPU stops for long stretches between operations.")
                             : _("The GPU stops for long stretches between operations."), longest / 1e6);
  *stake = g_steal_pointer (&long_gaps);
  return f;
}

typedef CpFinding *(*Evaluator) (Ctx *ctx, const CpRule *rule, CpIntervals **stake);

static CpFinding *
eval_transfer (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = eval_category (ctx, rule, CP_TIME_HOST_TO_DEVICE, "htod_percent",
                                _("The device waits for host-to-device copies."), stake);
  const CpTransferStats *t = &self->transfers[CP_TRANSFER_HTOD];

  if (f == NULL)
    return NULL;
  cp_finding_add_figure (f, "htod_copies", _("Host-to-device copies"), t->count, "count", NULL, NAN, NAN);
  if (t->bytes > 0)
    cp_finding_add_figure (f, "htod_bytes", _("Bytes copied host to device"), t->bytes, "bytes", NULL, NAN, NAN);
  if (!isnan (t->bandwidth))
    cp_finding_add_figure (f, "htod_bandwidth", _("Mean host-to-device bandwidth"), t->bandwidth, "GB/s", NULL, NAN, NAN);
  return f;
}

static CpFinding *
eval_output (Ctx           *ctx,
             const CpRule  *rule,
             CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = eval_category (ctx, rule, CP_TIME_DEVICE_TO_HOST, "dtoh_percent",
                                _("The device spends step time copying results back to the host."), stake);
  const CpTransferStats *t = &self->transfers[CP_TRANSFER_DTOH];

  if (f == NULL)
    return NULL;
  cp_finding_add_figure (f, "dtoh_copies", _("Device-to-host copies"), t->count, "count", NULL, NAN, NAN);
  if (!isnan (t->bandwidth))
    cp_finding_add_figure (f, "dtoh_bandwidth", _("Mean device-to-host bandwidth"), t->bandwidth, "GB/s", NULL, NAN, NAN);
  return f;
}

static CpFinding *
eval_async (Ctx           *ctx,
            const CpRule  *rule,
            CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = eval_category (ctx, rule, CP_TIME_ASYNC_WAIT, "async_wait_percent",
                                _("The device waits for asynchronous copies (host offload, copy-start / copy-done) instead of computing."),
                                stake);
  guint n = 0;

  if (f == NULL)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    n += g_array_index (self->devices, CpDeviceStats, d).n_async_ops;
  cp_finding_add_figure (f, "async_ops", _("Async ops (copy-start, copy-done, *-done)"), n, "count", NULL, NAN, NAN);
  return f;
}

static Evaluator
evaluator_for (const char *id)
{
  static const struct { const char *id; Evaluator fn; } table[] = {
    { "pageable-memcpy", eval_pageable },
    { "sync-stall", eval_sync },
    { "input-pipeline", eval_pipeline },
    { "input-bound", eval_input },
    { "dataloader-single-process", eval_loader_single },
    { "transfer-bound", eval_transfer },
    { "async-wait", eval_async },
    { "output-bound", eval_output },
    { "comm-bound", eval_comm },
    { "low-comm-overlap", eval_overlap },
    { "launch-bound", eval_launch },
    { "host-overhead", eval_host },
    { "no-mixed-precision", eval_precision },
    { "below-roofline", eval_roofline },
    { "memory-pressure", eval_memory },
    { "memory-headroom", eval_memory_headroom },
    { "memory-fragmentation", eval_memory_fragmentation },
    { "memory-leak", eval_memory_leak },
    { "dataparallel", eval_dataparallel },
    { "low-utilization", eval_utilization },
    { "gpu-gaps", eval_gaps },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i].id, id) == 0)
      return table[i].fn;
  g_assert_not_reached ();
  return NULL;
}

/* Two findings explain the same time when it falls in the same device idle
 * gaps: a finding's time is widened to the whole gaps it touches (its
 * "extent"), plus its time outside any gap. PairStats holds, for findings R
 * and S, the lengths explains() needs; pair_stats() gets them in one sweep
 * over the gaps and both stakes, without building the widened sets. */
typedef struct
{
  gint64 r_ext;       /* |ext(R)| */
  gint64 s_ext;       /* |ext(S)| */
  gint64 shared;      /* |ext(R) ∩ ext(S)| */
  gint64 s_in_r;      /* |stake(S) ∩ ext(R)| */
  gint64 r_in_s;      /* |stake(R) ∩ ext(S)| */
} PairStats;

static inline gint64
next_boundary (const CpIntervals *set,
               gsize              i,
               gint64             t,
               gboolean          *inside)
{
  if (i >= set->n)
    {
      *inside = FALSE;
      return G_MAXINT64;
    }
  *inside = set->v[i].start <= t;
  return *inside ? set->v[i].end : set->v[i].start;
}

static void
pair_stats (const CpIntervals *gaps,
            const CpIntervals *r,
            const CpIntervals *s,
            PairStats         *out)
{
  gsize gi = 0, ri = 0, si = 0;
  gint64 t = G_MAXINT64, a_r = 0, a_s = 0;

  memset (out, 0, sizeof *out);
  if (gaps->n)
    t = MIN (t, gaps->v[0].start);
  if (r->n)
    t = MIN (t, r->v[0].start);
  if (s->n)
    t = MIN (t, s->v[0].start);

  while (t != G_MAXINT64)
    {
      gboolean in_g, in_r, in_s;
      gint64 ng = next_boundary (gaps, gi, t, &in_g);
      gint64 nr = next_boundary (r, ri, t, &in_r);
      gint64 ns = next_boundary (s, si, t, &in_s);
      gint64 next = MIN (ng, MIN (nr, ns));
      gint64 len = next == G_MAXINT64 ? 0 : next - t;

      if (in_g)
        {
          a_r += in_r ? len : 0;
          a_s += in_s ? len : 0;
        }
      else
        {
          out->r_ext += in_r ? len : 0;
          out->s_ext += in_s ? len : 0;
          if (in_r && in_s)
            {
              out->shared += len;
              out->s_in_r += len;
              out->r_in_s += len;
            }
        }

      if (in_g && next == ng)
        {
          /* The gap ends: widen whoever touched it. */
          gint64 glen = gaps->v[gi].end - gaps->v[gi].start;

          if (a_r > 0)
            {
              out->r_ext += glen;
              out->s_in_r += a_s;
            }
          if (a_s > 0)
            {
              out->s_ext += glen;
              out->r_in_s += a_r;
            }
          if (a_r > 0 && a_s > 0)
            out->shared += glen;
          a_r = a_s = 0;
        }
      if (in_g && next == ng)
        gi++;
      if (in_r && next == nr)
        ri++;
      if (in_s && next == ns)
        si++;
      t = next;
    }
}

/* S explains R when their extents share at least half of R's, and S's own
 * time in what they share is larger (or equal, with S ranked first). */
static gboolean
explains (const PairStats *p,
          gboolean         s_is_first,
          guint            s_rank,
          guint            r_rank)
{
  gint64 r_ext = s_is_first ? p->s_ext : p->r_ext;
  gint64 own_s = s_is_first ? p->r_in_s : p->s_in_r;
  gint64 own_r = s_is_first ? p->s_in_r : p->r_in_s;

  /* Within the shared part: S's stake lies inside ext(S), so its time in the
   * shared part is its time inside ext(R); likewise for R. */
  if (r_ext == 0 || 2 * p->shared < r_ext)
    return FALSE;
  return own_s > own_r || (own_s == own_r && s_rank < r_rank);
}

const char *
cp_idle_cause_to_string (CpIdleCause cause)
{
  switch (cause)
    {
    case CP_IDLE_CAUSE_INPUT: return "input";
    case CP_IDLE_CAUSE_HOST: return "host";
    case CP_IDLE_CAUSE_SYNC: return "sync";
    case CP_IDLE_CAUSE_COMMUNICATION: return "communication";
    case CP_IDLE_CAUSE_TRANSFERS: return "transfers";
    case CP_IDLE_CAUSE_NONE:
    case CP_N_IDLE_CAUSES:
    default:
      return NULL;
    }
}

const char *
cp_idle_cause_get_label (CpIdleCause cause)
{
  switch (cause)
    {
    /* Translators: idle causes, in "The GPU waits mostly for input". */
    case CP_IDLE_CAUSE_INPUT: return _("input");
    case CP_IDLE_CAUSE_HOST: return _("host overhead and launches");
    case CP_IDLE_CAUSE_SYNC: return _("synchronisation");
    case CP_IDLE_CAUSE_COMMUNICATION: return _("communication");
    case CP_IDLE_CAUSE_TRANSFERS: return _("copies between host and device");
    case CP_IDLE_CAUSE_NONE:
    case CP_N_IDLE_CAUSES:
    default:
      return NULL;
    }
}

CpFindingSection
cp_finding_get_section (CpFinding *finding)
{
  const CpRule *rule;

  g_return_val_if_fail (CP_IS_FINDING (finding), CP_FINDING_SECTION_INFO);

  if (cp_finding_get_severity (finding) <= CP_SEVERITY_INFO)
    return CP_FINDING_SECTION_INFO;
  rule = cp_rules_lookup (cp_finding_get_rule_id (finding));
  if (rule != NULL && rule->kind == CP_RULE_CAUSE && rule->idle_cause == CP_IDLE_CAUSE_NONE)
    return CP_FINDING_SECTION_SPEEDUP;
  return CP_FINDING_SECTION_IDLE;
}

const char *
cp_finding_section_to_string (CpFindingSection section)
{
  switch (section)
    {
    case CP_FINDING_SECTION_IDLE: return "idle";
    case CP_FINDING_SECTION_SPEEDUP: return "speedup";
    case CP_FINDING_SECTION_INFO:
    case CP_N_FINDING_SECTIONS:
    default:
      return "info";
    }
}

gint
cp_findings_compare (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  CpFinding *x = (CpFinding *) a, *y = (CpFinding *) b;
  CpFindingSection sx = cp_finding_get_section (x), sy = cp_finding_get_section (y);
  gint64 tx = cp_finding_get_time_at_stake (x), ty = cp_finding_get_time_at_stake (y);
  const CpRule *rx, *ry;

  if (sx != sy)
    return sx < sy ? -1 : 1;
  if (tx != ty)
    return tx > ty ? -1 : 1;
  if (cp_finding_get_severity (x) != cp_finding_get_severity (y))
    return cp_finding_get_severity (x) > cp_finding_get_severity (y) ? -1 : 1;
  rx = cp_rules_lookup (cp_finding_get_rule_id (x));
  ry = cp_rules_lookup (cp_finding_get_rule_id (y));
  return rx < ry ? -1 : (rx > ry);
}

void
_cp_analysis_evaluate_rules (CpAnalysis *self)
{
  Ctx ctx = { self, FALSE, FALSE, FALSE, 0 };
  CpDeviceKind kind = cp_analysis_get_rule_device_kind (self);
  const CpFrameworkInfo *fw = &self->framework;
  Result results[G_N_ELEMENTS (rules)] = { { 0, }, };
  g_autofree guint *order = g_new (guint, G_N_ELEMENTS (rules));
  g_autofree PairStats *pairs = NULL;
  guint n_order = 0;

  _cp_analysis_memory (self);
  for (guint d = 0; d < self->devices->len; d++)
    if (g_array_index (self->devices, CpDeviceStats, d).n_kernels > 0 ||
        self->device_sets[d].ops->n > 0)
      ctx.has_device = TRUE;
  for (guint l = 0; l < self->n_lanes; l++)
    if (self->lanes[l].kind == CP_LANE_HOST_THREAD && cp_lane_get_n_slices (self->lanes[l].lane) > 0)
      ctx.has_host = TRUE;
  if (!ctx.has_device)
    _cp_analysis_add_note (self, "%s", _("The capture has no device activity: device rules were not checked"));
  else
    {
      guint64 ops = 0;

      for (guint d = 0; d < self->devices->len; d++)
        ops += g_array_index (self->devices, CpDeviceStats, d).n_kernels;
      for (guint k = 0; k < CP_TRANSFER_N_KINDS; k++)
        ops += self->transfers[k].count;
      /* Launch calls with (almost) no device work recorded: a CUDA graph
       * capture, or kernels the profiler did not record. Idle-time rules
       * would blame the host for time the device may have spent busy. */
      if (self->n_launch_calls >= 20 && ops * 10 < self->n_launch_calls)
        {
          ctx.has_device = FALSE;
          ctx.device_untraced = TRUE;
          _cp_analysis_add_note (self,
                                 _("%" PRIu64 " launch calls but only %" PRIu64 " device operations recorded "
                                   "(a CUDA graph capture, or device activity not traced): device rules were not checked"),
                                 self->n_launch_calls, ops);
        }
    }


  /* What the capture already applies. */
  if (fw->framework == CP_DETECTED_PYTORCH && (fw->variants & CP_VARIANT_TORCH_COMPILE))
    ctx.applied |= APPLIED_TORCH_COMPILE;
  if (fw->framework == CP_DETECTED_PYTORCH && (fw->variants & CP_VARIANT_CUDA_GRAPHS))
    ctx.applied |= APPLIED_CUDA_GRAPHS;
  if (fw->framework == CP_DETECTED_JAX && (fw->variants & CP_VARIANT_JIT))
    ctx.applied |= APPLIED_JAX_JIT;
  if (fw->framework == CP_DETECTED_TENSORFLOW && (fw->variants & CP_VARIANT_TF_FUNCTION))
    ctx.applied |= APPLIED_TF_FUNCTION;
  {
    gint64 c16 = self->summary[CP_TIME_COMPUTE_16].total, c32 = self->summary[CP_TIME_COMPUTE_32].total;

    /* AMP: 16-bit kernels do most of the device compute. */
    if (c16 > 0 && c16 >= c32)
      ctx.applied |= APPLIED_AMP;
  }
  for (guint l = 0; l < self->n_lanes && !(ctx.applied & APPLIED_PINNED); l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_TRANSFER || cp_lane_get_transfer_kind (self->lanes[l].lane) != CP_TRANSFER_HTOD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (s->flags[i] & CP_SLICE_PINNED)
          {
            ctx.applied |= APPLIED_PINNED;
            break;
          }
    }

  /* Rules for another framework or device kind: not checked, said once per
   * reason. */
  {
    g_autoptr(GHashTable) by_why = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, NULL);
    g_autoptr(GPtrArray) whys = g_ptr_array_new ();

    for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
      {
        const char *why = NULL;
        GString *ids;

        if (cp_rule_applies (&rules[i], fw->framework, kind, &why))
          continue;
        g_ptr_array_add (self->not_checked, (gpointer) &rules[i]);
        ids = g_hash_table_lookup (by_why, why);
        if (ids == NULL)
          {
            ids = g_string_new (rules[i].id);
            g_hash_table_insert (by_why, (gpointer) why, ids);
            g_ptr_array_add (whys, (gpointer) why);
          }
        else
          g_string_append_printf (ids, ", %s", rules[i].id);
      }
    for (guint k = 0; k < whys->len; k++)
      {
        GString *ids = g_hash_table_lookup (by_why, g_ptr_array_index (whys, k));

        /* Translators: "Not checked (for PyTorch only): dataparallel, dataloader-single-process". */
        _cp_analysis_add_note (self, _("Not checked (%s): %s"), (const char *) g_ptr_array_index (whys, k), ids->str);
        g_string_free (ids, TRUE);
      }
  }

  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      Result *r = &results[i];
      CpIntervals *stake = NULL;

      r->rule = &rules[i];
      if (!cp_rule_applies (&rules[i], fw->framework, kind, NULL))
        continue;
      /* Time-based rules read device idle time that is not really idle. */
      if (ctx.device_untraced && !(g_str_equal (rules[i].id, "pageable-memcpy") ||
                                   g_str_equal (rules[i].id, "no-mixed-precision") ||
                                   g_str_has_prefix (rules[i].id, "memory-") ||
                                   g_str_equal (rules[i].id, "dataparallel")))
        continue;
      r->finding = evaluator_for (rules[i].id) (&ctx, &rules[i], &stake);
      if (r->finding == NULL)
        {
          cp_intervals_free (stake);
          continue;
        }
      r->stake = stake ? stake : cp_intervals_new ();
      r->stake_time = cp_intervals_length (r->stake);
      cp_finding_finish_evidence (r->finding);
      /* No finding without evidence. */
      if (cp_finding_get_evidence_total (r->finding) == 0)
        {
          g_clear_object (&r->finding);
          g_clear_pointer (&r->stake, cp_intervals_free);
        }
    }

  /* Causes that explain the same time: keep the one with the most of it. */
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    if (results[i].finding != NULL && rules[i].kind == CP_RULE_CAUSE &&
        cp_finding_get_severity (results[i].finding) > CP_SEVERITY_INFO)
      order[n_order++] = i;
  /* Largest stake first (insertion sort: at most a dozen entries). */
  for (guint a = 1; a < n_order; a++)
    for (guint b = a; b > 0 && results[order[b]].stake_time > results[order[b - 1]].stake_time; b--)
      {
        guint tmp = order[b];

        order[b] = order[b - 1];
        order[b - 1] = tmp;
      }
  /* Pair figures, once per pair: pairs[a * n + b] with a < b. */
  if (n_order > 1)
    {
      g_autoptr(CpIntervals) gaps = cp_intervals_subtract (self->window_set, self->all_ops);

      pairs = g_new0 (PairStats, n_order * n_order);
      for (guint a = 0; a < n_order; a++)
        for (guint b = a + 1; b < n_order; b++)
          pair_stats (gaps, results[order[a]].stake, results[order[b]].stake, &pairs[a * n_order + b]);
    }
  for (guint a = 0; a < n_order; a++)
    {
      Result *r = &results[order[a]];

      for (guint b = 0; b < n_order; b++)
        {
          Result *s = &results[order[b]];
          const PairStats *p;

          if (a == b || s->demoted)
            continue;
          /* pair_stats() was run as (first, second) = (lower, higher) index. */
          p = &pairs[MIN (a, b) * n_order + MAX (a, b)];
          if (explains (p, b < a, order[b], order[a]))
            {
              g_autofree char *summary = NULL;

              r->demoted = TRUE;
              cp_finding_demote (r->finding, s->rule->id);
              summary = g_strconcat (cp_finding_get_summary (r->finding), " ",
                                     _("Mostly the same time as another finding, which explains it:"), " ",
                                     s->rule->id, NULL);
              cp_finding_set_summary (r->finding, summary);
              break;
            }
        }
    }

  /* Symptoms are info when a cause above info remains. */
  {
    const Result *top = NULL;

    for (guint a = 0; a < n_order; a++)
      if (!results[order[a]].demoted)
        {
          top = &results[order[a]];
          break;
        }
    for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
      {
        Result *r = &results[i];

        if (top != NULL && r->finding != NULL && rules[i].kind == CP_RULE_SYMPTOM &&
            cp_finding_get_severity (r->finding) > CP_SEVERITY_INFO)
          {
            g_autofree char *summary = g_strconcat (cp_finding_get_summary (r->finding), " ",
                                                    _("Explained by a cause above:"), " ",
                                                    top->rule->id, NULL);

            cp_finding_demote (r->finding, top->rule->id);
            cp_finding_set_summary (r->finding, summary);
          }
      }
  }

  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      if (results[i].finding != NULL)
        g_list_store_insert_sorted (self->findings, results[i].finding, cp_findings_compare, NULL);
      g_clear_object (&results[i].finding);
      cp_intervals_free (results[i].stake);
    }
  _cp_analysis_build_verdict (self);
}
