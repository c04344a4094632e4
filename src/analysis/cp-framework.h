/* cp-framework.h: which framework recorded a capture, told from its events
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace.h"
#include "cp-finding.h"

G_BEGIN_DECLS

/* What a capture was recorded from. Told from slice names (every lane but
 * counters and async spans, instants left out), the names of XLA lines and
 * Kineto's metadata; tests/framework-count.py counts the same signals over
 * the raw events:
 *
 *   PyTorch     "aten::" ops, "ProfilerStep#" markers, Kineto's schemaVersion;
 *               torch.compile: "Torch-Compiled Region", "CompiledFunction",
 *               "## Call CompiledFxGraph", Inductor "triton_" kernels;
 *               CUDA graphs: "cudaGraphLaunch" / "hipGraphLaunch" calls;
 *               eager when neither
 *   JAX         jit: "PjitFunction(" calls, "jit_" modules; "PmapFunction(";
 *               names mentioning "jax" (Python frames, jax.Array)
 *   TensorFlow  tf.function: names holding "__inference_", "__forward_",
 *               "__backward_" (its graphs, also called as
 *               "EagerLocalExecute: __inference_…") or "_XlaMustCompile"
 *               (one compiled by XLA); eager: "EagerKernelExecute" /
 *               "EagerLocalExecute" not of a tf.function, more of them
 *               than tf.function calls (each call runs one eagerly); the
 *               graph executor "ExecutorState::Process"; "_Send"/"_Recv"
 *               ops; Eigen kernels; Keras: names mentioning keras
 *   tf.data     "Iterator::" stages and "IteratorGetNext": TensorFlow's,
 *               unless JAX is seen and nothing else of TensorFlow (JAX
 *               programs feed from tf.data too)
 *   XLA         events on "XLA Modules" / "XLA Ops" lines, "…:XLA GPU module"
 *
 * The framework is the one with the most events among PyTorch, JAX and
 * TensorFlow (ties in that order); XLA when only XLA shows; none otherwise. */
typedef enum
{
  CP_DETECTED_NONE,
  CP_DETECTED_PYTORCH,
  CP_DETECTED_JAX,
  CP_DETECTED_TENSORFLOW,
  CP_DETECTED_XLA,            /* XLA programs without a framework's events */
} CpDetectedFramework;

typedef enum
{
  CP_VARIANT_EAGER         = 1u << 0,  /* PyTorch or TensorFlow eager */
  CP_VARIANT_TORCH_COMPILE = 1u << 1,
  CP_VARIANT_CUDA_GRAPHS   = 1u << 2,
  CP_VARIANT_JIT           = 1u << 3,  /* jax.jit */
  CP_VARIANT_PMAP          = 1u << 4,  /* jax.pmap */
  CP_VARIANT_TF_FUNCTION   = 1u << 5,
  CP_VARIANT_TF_DATA       = 1u << 6,
  CP_VARIANT_KERAS         = 1u << 7,
} CpFrameworkVariant;

#define CP_N_FRAMEWORK_VARIANTS 8

typedef enum
{
  CP_SIGNAL_ATEN,
  CP_SIGNAL_PROFILER_STEP,
  CP_SIGNAL_KINETO,
  CP_SIGNAL_COMPILED_REGION,
  CP_SIGNAL_COMPILED_FUNCTION,
  CP_SIGNAL_COMPILED_FX_GRAPH,
  CP_SIGNAL_TRITON,
  CP_SIGNAL_GRAPH_LAUNCH,
  CP_SIGNAL_PJIT,
  CP_SIGNAL_PMAP,
  CP_SIGNAL_JIT_MODULE,
  CP_SIGNAL_JAX_NAME,
  CP_SIGNAL_TF_FUNCTION,
  CP_SIGNAL_TF_EAGER,
  CP_SIGNAL_TF_EXECUTOR,
  CP_SIGNAL_TF_SEND_RECV,
  CP_SIGNAL_EIGEN,
  CP_SIGNAL_KERAS,
  CP_SIGNAL_TF_DATA,
  CP_SIGNAL_XLA_LINES,
  CP_N_FRAMEWORK_SIGNALS
} CpFrameworkSignal;

typedef struct
{
  CpDetectedFramework framework;
  guint               variants;                         /* CpFrameworkVariant */
  guint64             counts[CP_N_FRAMEWORK_SIGNALS];   /* events per signal */
} CpFrameworkInfo;

/* One pass over the slices' distinct names per lane. */
void         cp_framework_detect              (CpTrace             *trace,
                                               CpFrameworkInfo     *info);

/* "pytorch", "jax", "tensorflow", "xla", "none". */
const char  *cp_detected_framework_to_string  (CpDetectedFramework  framework);
/* "PyTorch", "JAX", "TensorFlow", "XLA"; translated "not recognised". */
const char  *cp_detected_framework_get_label  (CpDetectedFramework  framework);
/* "eager", "torch.compile", "cuda_graphs", "jit", "pmap", "tf.function",
 * "tf.data", "keras" (one bit). */
const char  *cp_framework_variant_to_string   (CpFrameworkVariant   variant);
/* For people: "torch.compile", "CUDA graphs", "jax.jit"… */
const char  *cp_framework_variant_get_label   (CpFrameworkVariant   variant);
/* "aten_ops", "torch_compiled_region"… */
const char  *cp_framework_signal_to_string    (CpFrameworkSignal    signal);
/* What was counted, translated: "'Torch-Compiled Region' ops". */
const char  *cp_framework_signal_get_label    (CpFrameworkSignal    signal);
/* The framework a signal speaks for (tf.data: TensorFlow; XLA lines: XLA). */
CpDetectedFramework cp_framework_signal_get_framework (CpFrameworkSignal signal);

/* The fixes that lead for it: PyTorch's, JAX's (also for XLA without a
 * framework) or TensorFlow's; FALSE when the framework is not recognised. */
gboolean     cp_framework_info_get_fixes_framework (const CpFrameworkInfo *info,
                                                    CpFramework           *framework);
/* "PyTorch (torch.compile, CUDA graphs)", or the label alone. */
char        *cp_framework_info_describe       (const CpFrameworkInfo *info);
/* "'Torch-Compiled Region' ops (12), 'aten::' ops (3,402)": the signals of
 * the framework found (with tf.data and XLA lines), most events first; NULL
 * when none. */
char        *cp_framework_info_describe_evidence (const CpFrameworkInfo *info);

G_END_DECLS
