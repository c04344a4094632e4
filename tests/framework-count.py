#!/usr/bin/env python3
# framework-count.py: an independent count of the events that tell a
# capture's framework
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Reads a Chrome/Kineto JSON trace (plain or gzip) or an XSpace (decoded by
# hand with the wire walk of xla-count.py) and prints one JSON object that
# tests/test-framework.c compares with cp_framework_detect():
#   counts    events per signal, by the signal's id (the rules below)
#   framework "pytorch", "jax", "tensorflow", "xla" or "none"
#   variants  the variants shown, sorted
#
# Events: Chrome X and B events with a numeric ts and a string name;
# XSpace events of every line (not aggregated ones, which carry
# num_occurrences), named by their metadata's display_name, else its name.
# "Kernel" events: Chrome cat "kernel"; XSpace events on the device planes'
# lines that are not lines XProf derives (Steps, XLA Modules, ...) on a GPU,
# and on the "XLA Ops" lines of other devices.
#
# Signals (prefix unless said): aten_ops "aten::"; profiler_steps
# "ProfilerStep#"; kineto_metadata: a top-level "schemaVersion" (1);
# torch_compiled_region "Torch-Compiled Region"; compiled_function
# "CompiledFunction"; compiled_fx_graph "## Call CompiledFxGraph";
# triton_kernels "triton_" kernels; graph_launches "cudaGraphLaunch",
# "hipGraphLaunch"; pjit_calls "PjitFunction("; pmap_calls "PmapFunction(";
# jit_modules "jit_", "pmap_"; jax_names containing "jax"; tf_functions
# containing "__inference_", "__forward_", "__backward_" or
# "_XlaMustCompile"; tf_eager "EagerKernelExecute", "EagerLocalExecute"
# (not when the name is also a tf_functions one: the call of a function);
# tf_executor "ExecutorState::Process"; tf_send_recv "_Send", "_Recv",
# "_HostSend", "_HostRecv"; eigen_kernels "Eigen::" kernels; keras containing
# "keras" in any case; tf_data "Iterator::", "IteratorGetNext"; xla_lines
# ending ":XLA GPU module", and every event on an "XLA Modules" or "XLA Ops"
# line.
#
# Framework: PyTorch counts its seven signals, JAX its four, TensorFlow its
# seven and tf_data; when JAX counts anything and TensorFlow nothing but
# tf_data, tf_data counts for JAX instead. The largest wins (ties: PyTorch,
# JAX, TensorFlow); none counting, "xla" when xla_lines does, else "none".
# Variants of the winner: torch.compile (the four compile signals),
# cuda_graphs, eager (PyTorch without those two; TensorFlow tf_eager when
# it counts more than tf_functions: each call runs one kernel eagerly), jit
# (pjit_calls, jit_modules), pmap, tf.function, tf.data (also for JAX),
# keras.

import gzip
import importlib.util
import json
import math
import os
import sys

SIGNALS = [
    # id, framework, variant, kind, kernels only, patterns
    ("aten_ops", "pytorch", None, "prefix", False, ["aten::"]),
    ("profiler_steps", "pytorch", None, "prefix", False, ["ProfilerStep#"]),
    ("kineto_metadata", "pytorch", None, None, False, []),
    ("torch_compiled_region", "pytorch", "torch.compile", "prefix", False, ["Torch-Compiled Region"]),
    ("compiled_function", "pytorch", "torch.compile", "prefix", False, ["CompiledFunction"]),
    ("compiled_fx_graph", "pytorch", "torch.compile", "prefix", False, ["## Call CompiledFxGraph"]),
    ("triton_kernels", "pytorch", "torch.compile", "prefix", True, ["triton_"]),
    ("graph_launches", "pytorch", "cuda_graphs", "prefix", False, ["cudaGraphLaunch", "hipGraphLaunch"]),
    ("pjit_calls", "jax", "jit", "prefix", False, ["PjitFunction("]),
    ("pmap_calls", "jax", "pmap", "prefix", False, ["PmapFunction("]),
    ("jit_modules", "jax", "jit", "prefix", False, ["jit_", "pmap_"]),
    ("jax_names", "jax", None, "in", False, ["jax"]),
    ("tf_functions", "tensorflow", "tf.function", "in", False,
     ["__inference_", "__forward_", "__backward_", "_XlaMustCompile"]),
    ("tf_eager", "tensorflow", "eager", "prefix", False, ["EagerKernelExecute", "EagerLocalExecute"]),
    ("tf_executor", "tensorflow", None, "prefix", False, ["ExecutorState::Process"]),
    ("tf_send_recv", "tensorflow", None, "prefix", False, ["_Send", "_Recv", "_HostSend", "_HostRecv"]),
    ("eigen_kernels", "tensorflow", None, "prefix", True, ["Eigen::"]),
    ("keras", "tensorflow", "keras", "in-nocase", False, ["keras"]),
    ("tf_data", "tensorflow", "tf.data", "prefix", False, ["Iterator::", "IteratorGetNext"]),
    ("xla_lines", "xla", None, "suffix", False, [":XLA GPU module"]),
]

DERIVED = {"Steps", "XLA Modules", "XLA Ops", "XLA TraceMe", "Framework Ops", "Framework Name Scope",
           "TensorFlow Ops", "TensorFlow Name Scope", "Source code", "Async XLA Ops", "CUPTI overhead",
           "SparseCore Steps", "Sparse Core Ops", "_counters_"}


def match(kind, pats, name):
    if kind == "prefix":
        return any(name.startswith(p) for p in pats)
    if kind == "in":
        return any(p in name for p in pats)
    if kind == "in-nocase":
        return any(p in name.lower() for p in pats)
    if kind == "suffix":
        return any(name.endswith(p) for p in pats)
    return False


UNLESS = {"tf_eager": "tf_functions"}


def add(counts, name, kernel, n=1):
    by_id = {s[0]: s for s in SIGNALS}
    for sid, fw, var, kind, kern, pats in SIGNALS:
        other = by_id.get(UNLESS.get(sid))
        if other and match(other[3], other[5], name):
            continue
        if (kernel or not kern) and match(kind, pats, name):
            counts[sid] += n


def number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def chrome(path, counts):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8", errors="replace"))
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    if isinstance(doc, dict) and "schemaVersion" in doc:
        counts["kineto_metadata"] = 1
    for e in events if isinstance(events, list) else []:
        if not isinstance(e, dict) or e.get("ph") not in ("X", "B"):
            continue
        name = e.get("name")
        if not isinstance(name, str) or number(e.get("ts")) is None:
            continue
        add(counts, name, e.get("cat") == "kernel")


def xspace(path, counts):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("xla_count", os.path.join(here, "xla-count.py"))
    x = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(x)
    fields, text = x.fields, x.text
    b = open(path, "rb").read()
    for f, w, v in fields(b, 0, len(b)):
        if f != 1 or w != 2:
            continue
        pname, lines, names = "", [], {}
        for pf, pw, pv in fields(b, *v):
            if pf == 2:
                pname = text(b, pv)
            elif pf == 3:
                lines.append(pv)
            elif pf == 4:
                key, n, d = 0, "", ""
                for mf, mw, mv in fields(b, *pv):
                    if mf == 1:
                        key = mv
                    elif mf == 2:
                        for qf, qw, qv in fields(b, *mv):
                            if qf == 2:
                                n = text(b, qv)
                            elif qf == 4:
                                d = text(b, qv)
                names[key] = d or n
        device = pname.startswith("/device:")
        gpu = pname.startswith("/device:GPU:")
        for lv in lines:
            lname, evs = "", []
            for lf, lw, lval in fields(b, *lv):
                if lf == 2:
                    lname = text(b, lval)
                elif lf == 4:
                    evs.append(lval)
            kernel = device and ((gpu and lname not in DERIVED) or (not gpu and lname == "XLA Ops"))
            for ev in evs:
                mid, aggregated = 0, False
                for ef, ew, evv in fields(b, *ev):
                    if ef == 1:
                        mid = evv
                    elif ef == 5:
                        aggregated = True
                if aggregated:
                    continue
                add(counts, names.get(mid, ""), kernel)
                if lname in ("XLA Modules", "XLA Ops"):
                    counts["xla_lines"] += 1


def main(path):
    counts = {s[0]: 0 for s in SIGNALS}
    with open(path, "rb") as f:
        head = f.read(64)
    if head[:1] in (b"{", b"[") or head[:2] == b"\x1f\x8b":
        chrome(path, counts)
    else:
        xspace(path, counts)
    fw = {"pytorch": 0, "jax": 0, "tensorflow": 0, "xla": 0}
    for s in SIGNALS:
        fw[s[1]] += counts[s[0]]
    tf_core = fw["tensorflow"] - counts["tf_data"]
    if fw["jax"] > 0 and tf_core == 0:
        fw["tensorflow"] = 0
        fw["jax"] += counts["tf_data"]
    name, best = "none", 0
    for f in ("pytorch", "jax", "tensorflow"):
        if fw[f] > best:
            name, best = f, fw[f]
    if name == "none" and fw["xla"] > 0:
        name = "xla"
    variants = set()
    for sid, f, var, kind, kern, pats in SIGNALS:
        if counts[sid] > 0 and var and (f == name or (sid == "tf_data" and name == "jax")):
            variants.add(var)
    if name == "pytorch" and not variants & {"torch.compile", "cuda_graphs"}:
        variants.add("eager")
    if name == "tensorflow" and counts["tf_eager"] <= counts["tf_functions"]:
        variants.discard("eager")
    print(json.dumps({"counts": counts, "framework": name, "variants": sorted(variants)}))


if __name__ == "__main__":
    main(sys.argv[1])
