/* cp-rules.c: the rule catalog: thresholds, sources and fixes per framework
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-rules-private.h"

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
const char * const _cp_rule_fix_pipeline_tf[] = {
  N_("End the tf.data pipeline with .prefetch(tf.data.AUTOTUNE) so the next batch is prepared while the device computes"),
  N_("Parallelise the slowest stage: map(..., num_parallel_calls=tf.data.AUTOTUNE), interleave(..., num_parallel_calls=tf.data.AUTOTUNE) for file reads"),
  N_("Cache what does not change between epochs with .cache(), or preprocess offline"),
  NULL
};

/* Stage-specific tf.data fixes, for the stage with the most self time. */
const char *
_cp_rule_pipeline_stage_fix (const char *stage)
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
const char * const _cp_rule_fix_amp_tpu_jax[] = {
  N_("Compute in bfloat16 (model dtype=jnp.bfloat16, or a mixed-precision policy such as jmp) with fp32 master weights: the TPU's MXU multiplies bf16 natively"),
  N_("Check the precision of the f32 dots and convolutions: precision=HIGHEST (or jax.default_matmul_precision(\"highest\")) makes the MXU take several bf16 passes each"),
  NULL
};
const char * const _cp_rule_fix_amp_tpu_tf[] = {
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
static const char * const fix_throttle[] = {
  N_("See why the clocks drop: nvidia-smi -q -d PERFORMANCE names the clock event reasons (power cap, thermal or hardware slowdown); rocm-smi --showperflevel on AMD"),
  N_("For a power or thermal limit: check the cooling and airflow and the power limit (nvidia-smi -q -d POWER), and keep other heavy jobs off the node"),
  N_("To compare runs, lock the clocks while measuring (nvidia-smi --lock-gpu-clocks)"),
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
    { fix_pipeline_pt, _cp_rule_fix_pipeline_tf, _cp_rule_fix_pipeline_tf }, CP_IDLE_CAUSE_INPUT,
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
  { "clock-throttling", N_("Clocks drop while busy"),
    /* xgettext:no-c-format */
    N_("Device busy time at an SM clock under 85% of the highest the capture shows, % of the device's busy time"), "%",
    CP_COMPARE_GE, 10, NAN, FALSE, CP_RULE_CAUSE,
    /* xgettext:no-c-format */
    N_("nvidia-smi and DCGM clocks and clock event reasons (the SM clock against its maximum); the 85% and 10% levels: Chokepoint"),
    { fix_throttle, fix_throttle, fix_throttle }, CP_IDLE_CAUSE_NONE,
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
    N_("Fitted growth of allocated memory over the step ends (least-squares slope times the steps), % of peak allocated, when it grows after three in four steps and never falls back to where it started"), "%",
    CP_COMPARE_GT, 5, 20, FALSE, CP_RULE_RISK,
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

gboolean
_cp_rule_passes (CpCompare compare,
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

  if (_cp_rule_passes (rule->compare, value, rule->high))
    {
      *severity = CP_SEVERITY_HIGH;
      return TRUE;
    }
  if (_cp_rule_passes (rule->compare, value, rule->moderate))
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

/* The technique a fix recommends, when the capture may already use it. */
guint
_cp_rule_fix_technique (const char *fix)
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

/* What a fix needs of the device (Lacks), when it does not hold for all. */
guint
_cp_rule_fix_needs (const char *fix)
{
  if (fix == fix_amp_pt[1] || fix == fix_amp_jax[1] || fix == fix_amp_tf[1])
    return LACKS_TF32;
  return 0;
}

/* What to look at instead, in a capture that already applies it. */
const char *
_cp_rule_applied_fix (guint technique)
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
