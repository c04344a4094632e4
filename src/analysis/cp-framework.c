/* cp-framework.c: which framework recorded a capture, told from its events
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-framework.h"

typedef enum
{
  MATCH_PREFIX,
  MATCH_SUBSTRING,
  MATCH_SUBSTRING_NOCASE,
  MATCH_SUFFIX,
  MATCH_NONE,               /* counted otherwise (metadata, line names) */
} MatchKind;

typedef struct
{
  const char          *id;
  const char          *label;      /* N_() */
  CpDetectedFramework  framework;
  guint                variant;    /* the variant it shows, 0 for none */
  MatchKind            match;
  gboolean             kernels;    /* on kernel lanes only */
  const char          *patterns[4];
  gint                 unless;     /* a signal whose match on the same name cancels this one, or -1 */
} Signal;

/* In CpFrameworkSignal order. */
static const Signal signals[CP_N_FRAMEWORK_SIGNALS] = {
  { "aten_ops", N_("“aten::” ops"), CP_DETECTED_PYTORCH, 0, MATCH_PREFIX, FALSE, { "aten::" }, -1 },
  { "profiler_steps", N_("“ProfilerStep#” markers"), CP_DETECTED_PYTORCH, 0, MATCH_PREFIX, FALSE, { "ProfilerStep#" }, -1 },
  { "kineto_metadata", N_("Kineto trace metadata"), CP_DETECTED_PYTORCH, 0, MATCH_NONE, FALSE, { NULL }, -1 },
  { "torch_compiled_region", N_("“Torch-Compiled Region” ops"), CP_DETECTED_PYTORCH, CP_VARIANT_TORCH_COMPILE,
    MATCH_PREFIX, FALSE, { "Torch-Compiled Region" }, -1 },
  { "compiled_function", N_("“CompiledFunction” ops"), CP_DETECTED_PYTORCH, CP_VARIANT_TORCH_COMPILE,
    MATCH_PREFIX, FALSE, { "CompiledFunction" }, -1 },
  { "compiled_fx_graph", N_("“CompiledFxGraph” calls"), CP_DETECTED_PYTORCH, CP_VARIANT_TORCH_COMPILE,
    MATCH_PREFIX, FALSE, { "## Call CompiledFxGraph" }, -1 },
  { "triton_kernels", N_("Triton kernels from Inductor"), CP_DETECTED_PYTORCH, CP_VARIANT_TORCH_COMPILE,
    MATCH_PREFIX, TRUE, { "triton_" }, -1 },
  { "graph_launches", N_("CUDA / HIP graph launches"), CP_DETECTED_PYTORCH, CP_VARIANT_CUDA_GRAPHS,
    MATCH_PREFIX, FALSE, { "cudaGraphLaunch", "hipGraphLaunch" }, -1 },
  { "pjit_calls", N_("“PjitFunction” calls"), CP_DETECTED_JAX, CP_VARIANT_JIT, MATCH_PREFIX, FALSE, { "PjitFunction(" }, -1 },
  { "pmap_calls", N_("“PmapFunction” calls"), CP_DETECTED_JAX, CP_VARIANT_PMAP, MATCH_PREFIX, FALSE, { "PmapFunction(" }, -1 },
  { "jit_modules", N_("“jit_” XLA modules"), CP_DETECTED_JAX, CP_VARIANT_JIT, MATCH_PREFIX, FALSE, { "jit_", "pmap_" }, -1 },
  { "jax_names", N_("events naming jax"), CP_DETECTED_JAX, 0, MATCH_SUBSTRING, FALSE, { "jax" }, -1 },
  /* A tf.function's graphs: "__inference_train_step_12", called eagerly as
   * "EagerLocalExecute: __inference_train_step_12"; its gradient's
   * "__forward_" / "__backward_" halves; an XLA cluster of one compiled
   * with jit_compile ("a_inference_train_step_12__XlaMustCompile_true..."). */
  { "tf_functions", N_("“__inference_” tf.function graphs"), CP_DETECTED_TENSORFLOW, CP_VARIANT_TF_FUNCTION,
    MATCH_SUBSTRING, FALSE, { "__inference_", "__forward_", "__backward_", "_XlaMustCompile" }, -1 },
  /* The call of a tf.function is an eager execution too, of the function:
   * not an op run eagerly. */
  { "tf_eager", N_("TensorFlow eager op executions"), CP_DETECTED_TENSORFLOW, CP_VARIANT_EAGER,
    MATCH_PREFIX, FALSE, { "EagerKernelExecute", "EagerLocalExecute" }, CP_SIGNAL_TF_FUNCTION },
  { "tf_executor", N_("TensorFlow graph executor events"), CP_DETECTED_TENSORFLOW, 0,
    MATCH_PREFIX, FALSE, { "ExecutorState::Process" }, -1 },
  { "tf_send_recv", N_("TensorFlow “_Send” / “_Recv” ops"), CP_DETECTED_TENSORFLOW, 0,
    MATCH_PREFIX, FALSE, { "_Send", "_Recv", "_HostSend", "_HostRecv" }, -1 },
  { "eigen_kernels", N_("TensorFlow Eigen kernels"), CP_DETECTED_TENSORFLOW, 0,
    MATCH_PREFIX, TRUE, { "Eigen::" }, -1 },
  { "keras", N_("events naming Keras"), CP_DETECTED_TENSORFLOW, CP_VARIANT_KERAS,
    MATCH_SUBSTRING_NOCASE, FALSE, { "keras" }, -1 },
  { "tf_data", N_("tf.data iterator events"), CP_DETECTED_TENSORFLOW, CP_VARIANT_TF_DATA,
    MATCH_PREFIX, FALSE, { "Iterator::", "IteratorGetNext" }, -1 },
  { "xla_lines", N_("events on XLA lines"), CP_DETECTED_XLA, 0, MATCH_SUFFIX, FALSE, { ":XLA GPU module" }, -1 },
};

static gboolean
matches (const Signal *sig,
         const char   *name,
         gsize         len)
{
  for (guint p = 0; p < G_N_ELEMENTS (sig->patterns) && sig->patterns[p] != NULL; p++)
    {
      const char *pat = sig->patterns[p];

      switch (sig->match)
        {
        case MATCH_PREFIX:
          if (g_str_has_prefix (name, pat))
            return TRUE;
          break;
        case MATCH_SUBSTRING:
          if (strstr (name, pat) != NULL)
            return TRUE;
          break;
        case MATCH_SUBSTRING_NOCASE:
          {
            gsize pl = strlen (pat);

            for (gsize i = 0; i + pl <= len; i++)
              if (g_ascii_strncasecmp (name + i, pat, pl) == 0)
                return TRUE;
          }
          break;
        case MATCH_SUFFIX:
          if (g_str_has_suffix (name, pat))
            return TRUE;
          break;
        case MATCH_NONE:
        default:
          break;
        }
    }
  return FALSE;
}

/* Adds the signals of one distinct name seen count times on a lane. */
static void
count_name (CpFrameworkInfo *info,
            const char      *name,
            gboolean         kernel_lane,
            guint64          count)
{
  gsize len = strlen (name);

  for (guint s = 0; s < CP_N_FRAMEWORK_SIGNALS; s++)
    if ((!signals[s].kernels || kernel_lane) && matches (&signals[s], name, len) &&
        (signals[s].unless < 0 || !matches (&signals[signals[s].unless], name, len)))
      info->counts[s] += count;
}

static gboolean
is_xla_line (const char *name)
{
  return g_strcmp0 (name, "XLA Modules") == 0 || g_strcmp0 (name, "XLA Ops") == 0;
}

void
cp_framework_detect (CpTrace         *trace,
                     CpFrameworkInfo *info)
{
  guint n_lanes;
  guint64 fw_count[CP_DETECTED_XLA + 1] = { 0, };
  guint64 tf_core = 0;

  g_return_if_fail (CP_IS_TRACE (trace));
  g_return_if_fail (info != NULL);

  memset (info, 0, sizeof *info);
  n_lanes = cp_trace_get_n_lanes (trace);
  for (guint l = 0; l < n_lanes; l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      CpLaneKind kind = cp_lane_get_kind (lane);
      const CpSlices *s = cp_lane_get_slices (lane);
      gboolean kernel_lane = kind == CP_LANE_KERNEL;
      guint64 n_slices = 0;

      if (kind == CP_LANE_COUNTER || kind == CP_LANE_ASYNC || s == NULL || s->n == 0)
        continue;
      if (s->name_table != NULL)
        {
          guint n_names = 0;
          g_autofree guint64 *per = NULL;

          for (guint i = 0; i < s->n; i++)
            n_names = MAX (n_names, (guint) s->name16[i] + 1);
          per = g_new0 (guint64, n_names);
          for (guint i = 0; i < s->n; i++)
            if (!(s->flags[i] & CP_SLICE_INSTANT))
              {
                per[s->name16[i]]++;
                n_slices++;
              }
          for (guint k = 0; k < n_names; k++)
            if (per[k] > 0)
              count_name (info, cp_trace_get_string (trace, s->name_table[k]), kernel_lane, per[k]);
        }
      else
        {
          g_autoptr(GHashTable) per = g_hash_table_new (g_direct_hash, g_direct_equal);
          GHashTableIter it;
          gpointer key, value;

          for (guint i = 0; i < s->n; i++)
            if (!(s->flags[i] & CP_SLICE_INSTANT))
              {
                gpointer k = GUINT_TO_POINTER (s->name32[i] + 1);

                g_hash_table_insert (per, k, GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (per, k)) + 1));
                n_slices++;
              }
          g_hash_table_iter_init (&it, per);
          while (g_hash_table_iter_next (&it, &key, &value))
            count_name (info, cp_trace_get_string (trace, GPOINTER_TO_UINT (key) - 1), kernel_lane,
                        GPOINTER_TO_SIZE (value));
        }
      if ((kind == CP_LANE_KERNEL || kind == CP_LANE_DEVICE_ANNOTATION) && is_xla_line (cp_lane_get_name (lane)))
        info->counts[CP_SIGNAL_XLA_LINES] += n_slices;
    }
  if (cp_trace_lookup_metadata (trace, "schemaVersion") != NULL)
    info->counts[CP_SIGNAL_KINETO] = 1;

  for (guint s = 0; s < CP_N_FRAMEWORK_SIGNALS; s++)
    {
      fw_count[signals[s].framework] += info->counts[s];
      if (signals[s].framework == CP_DETECTED_TENSORFLOW && s != CP_SIGNAL_TF_DATA)
        tf_core += info->counts[s];
    }
  /* tf.data feeds JAX programs too: it speaks for TensorFlow only when
   * JAX does not show, or TensorFlow shows otherwise. */
  if (fw_count[CP_DETECTED_JAX] > 0 && tf_core == 0)
    {
      fw_count[CP_DETECTED_TENSORFLOW] = 0;
      fw_count[CP_DETECTED_JAX] += info->counts[CP_SIGNAL_TF_DATA];
    }

  info->framework = CP_DETECTED_NONE;
  {
    guint64 best = 0;

    for (CpDetectedFramework f = CP_DETECTED_PYTORCH; f <= CP_DETECTED_TENSORFLOW; f++)
      if (fw_count[f] > best)
        {
          best = fw_count[f];
          info->framework = f;
        }
  }
  if (info->framework == CP_DETECTED_NONE && fw_count[CP_DETECTED_XLA] > 0)
    info->framework = CP_DETECTED_XLA;

  for (guint s = 0; s < CP_N_FRAMEWORK_SIGNALS; s++)
    {
      gboolean ours = signals[s].framework == info->framework ||
                      (s == CP_SIGNAL_TF_DATA && info->framework == CP_DETECTED_JAX);

      if (info->counts[s] > 0 && ours)
        info->variants |= signals[s].variant;
    }
  /* Each call of a tf.function runs one kernel eagerly (its
   * EagerKernelExecute): eager only beyond those. */
  if (info->framework == CP_DETECTED_TENSORFLOW &&
      info->counts[CP_SIGNAL_TF_EAGER] <= info->counts[CP_SIGNAL_TF_FUNCTION])
    info->variants &= ~CP_VARIANT_EAGER;
  if (info->framework == CP_DETECTED_PYTORCH &&
      !(info->variants & (CP_VARIANT_TORCH_COMPILE | CP_VARIANT_CUDA_GRAPHS)))
    info->variants |= CP_VARIANT_EAGER;
}

const char *
cp_detected_framework_to_string (CpDetectedFramework framework)
{
  switch (framework)
    {
    case CP_DETECTED_PYTORCH: return "pytorch";
    case CP_DETECTED_JAX: return "jax";
    case CP_DETECTED_TENSORFLOW: return "tensorflow";
    case CP_DETECTED_XLA: return "xla";
    case CP_DETECTED_NONE:
    default:
      return "none";
    }
}

const char *
cp_detected_framework_get_label (CpDetectedFramework framework)
{
  switch (framework)
    {
    case CP_DETECTED_PYTORCH: return "PyTorch";
    case CP_DETECTED_JAX: return "JAX";
    case CP_DETECTED_TENSORFLOW: return "TensorFlow";
    /* Translators: XLA programs recorded without a framework's events. */
    case CP_DETECTED_XLA: return _("XLA (no framework events)");
    case CP_DETECTED_NONE:
    default:
      /* Translators: the framework of a capture could not be told. */
      return _("not recognised");
    }
}

const char *
cp_framework_variant_to_string (CpFrameworkVariant variant)
{
  switch (variant)
    {
    case CP_VARIANT_EAGER: return "eager";
    case CP_VARIANT_TORCH_COMPILE: return "torch.compile";
    case CP_VARIANT_CUDA_GRAPHS: return "cuda_graphs";
    case CP_VARIANT_JIT: return "jit";
    case CP_VARIANT_PMAP: return "pmap";
    case CP_VARIANT_TF_FUNCTION: return "tf.function";
    case CP_VARIANT_TF_DATA: return "tf.data";
    case CP_VARIANT_KERAS: return "keras";
    default:
      return NULL;
    }
}

const char *
cp_framework_variant_get_label (CpFrameworkVariant variant)
{
  switch (variant)
    {
    /* Translators: a framework running op by op, not compiled. */
    case CP_VARIANT_EAGER: return _("eager");
    case CP_VARIANT_TORCH_COMPILE: return "torch.compile";
    case CP_VARIANT_CUDA_GRAPHS: return _("CUDA graphs");
    case CP_VARIANT_JIT: return "jax.jit";
    case CP_VARIANT_PMAP: return "jax.pmap";
    case CP_VARIANT_TF_FUNCTION: return "tf.function";
    case CP_VARIANT_TF_DATA: return "tf.data";
    case CP_VARIANT_KERAS: return "Keras";
    default:
      return NULL;
    }
}

const char *
cp_framework_signal_to_string (CpFrameworkSignal signal)
{
  g_return_val_if_fail (signal < CP_N_FRAMEWORK_SIGNALS, NULL);
  return signals[signal].id;
}

const char *
cp_framework_signal_get_label (CpFrameworkSignal signal)
{
  g_return_val_if_fail (signal < CP_N_FRAMEWORK_SIGNALS, NULL);
  return _(signals[signal].label);
}

CpDetectedFramework
cp_framework_signal_get_framework (CpFrameworkSignal signal)
{
  g_return_val_if_fail (signal < CP_N_FRAMEWORK_SIGNALS, CP_DETECTED_NONE);
  return signals[signal].framework;
}

gboolean
cp_framework_info_get_fixes_framework (const CpFrameworkInfo *info,
                                       CpFramework           *framework)
{
  g_return_val_if_fail (info != NULL, FALSE);

  switch (info->framework)
    {
    case CP_DETECTED_PYTORCH:
      *framework = CP_FRAMEWORK_PYTORCH;
      return TRUE;
    case CP_DETECTED_JAX:
    case CP_DETECTED_XLA:
      *framework = CP_FRAMEWORK_JAX;
      return TRUE;
    case CP_DETECTED_TENSORFLOW:
      *framework = CP_FRAMEWORK_TENSORFLOW;
      return TRUE;
    case CP_DETECTED_NONE:
    default:
      return FALSE;
    }
}

char *
cp_framework_info_describe (const CpFrameworkInfo *info)
{
  GString *s;
  gboolean first = TRUE;

  g_return_val_if_fail (info != NULL, NULL);

  s = g_string_new (cp_detected_framework_get_label (info->framework));
  for (guint v = 0; v < CP_N_FRAMEWORK_VARIANTS; v++)
    if (info->variants & (1u << v))
      {
        g_string_append (s, first ? " (" : ", ");
        g_string_append (s, cp_framework_variant_get_label (1u << v));
        first = FALSE;
      }
  if (!first)
    g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static gboolean
signal_speaks (const CpFrameworkInfo *info,
               guint                  s)
{
  return info->counts[s] > 0 &&
         (signals[s].framework == info->framework || s == CP_SIGNAL_TF_DATA ||
          signals[s].framework == CP_DETECTED_XLA);
}

char *
cp_framework_info_describe_evidence (const CpFrameworkInfo *info)
{
  g_autoptr(GString) s = g_string_new (NULL);
  guint order[CP_N_FRAMEWORK_SIGNALS], n = 0;

  g_return_val_if_fail (info != NULL, NULL);

  for (guint k = 0; k < CP_N_FRAMEWORK_SIGNALS; k++)
    if (signal_speaks (info, k))
      order[n++] = k;
  for (guint a = 1; a < n; a++)
    for (guint b = a; b > 0 && info->counts[order[b]] > info->counts[order[b - 1]]; b--)
      {
        guint t = order[b];

        order[b] = order[b - 1];
        order[b - 1] = t;
      }
  if (n == 0)
    return NULL;
  for (guint k = 0; k < n; k++)
    {
      if (k > 0)
        g_string_append (s, ", ");
      if (order[k] == CP_SIGNAL_KINETO)
        g_string_append (s, cp_framework_signal_get_label (order[k]));
      else
        g_string_append_printf (s, "%s (%" G_GUINT64_FORMAT ")", cp_framework_signal_get_label (order[k]),
                                info->counts[order[k]]);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}
