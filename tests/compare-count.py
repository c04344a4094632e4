#!/usr/bin/env python3
# compare-count.py: an independent count of what `chokepoint compare` says
# about two PyTorch / Kineto Chrome-trace captures (plain or gzip)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# From the raw events only (no code shared with the C comparison; the step
# windows and DataLoader spans are input-share.py's, numbers are read as
# chrome-count.py reads them, exact decimals of µs as ns):
#
#   windows     the ProfilerStep windows of input-share.py; a capture without
#               markers is one window, from its first timestamp to the last
#               end of a complete event;
#   mean step   Σ window lengths // windows;
#   input wait  |DataLoader ∩ windows| minus the instants where the device
#               works at a higher priority of the breakdown: non-NCCL kernels
#               and DtoH, DtoD or PtoP copies (XProf's order: device compute
#               and those copies outrank HOST_WAIT_INPUT, collectives and
#               HtoD copies do not);
#   kernels     complete events of category "kernel", grouped by the name
#               folded as docs/compare-json.md says (normalise() below),
#               count and Σ duration per side.
#
#   call paths  host ops (complete events of positive duration on a host
#               thread, not of a device category, not a CUDA / HIP API call
#               by name, not a ProfilerStep marker, not a python_function),
#               each keyed by the names of the ops around it on its thread
#               (nesting by time: sorted by start, longer first, then file
#               order; an event ends before one that starts at its end),
#               outermost first, joined by " > "; count and Σ duration.
#
#   launching   kernels keyed by the deepest of those host ops around their
#   ops         launch (the host event with the kernel's correlation id, on
#               its thread); kernels without a launch or an op around it are
#               left out; count and Σ kernel duration.
#
# Prints one JSON object:
#   {"a": SIDE, "b": SIDE, "kernels": {KEY: {"a_count", "a_total_ns",
#    "b_count", "b_total_ns"}}, "paths": {PATH: {same}}, "ops": {OP: {same}}}
# with SIDE = {"steps", "windows", "window_ns", "mean_step_ns",
#              "input_wait_ns", "kernel_ns"}.

import decimal
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("input_share", os.path.join(HERE, "input-share.py"))
input_share = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(input_share)

# Launchers whose own name says nothing: their first template argument is
# the kernel.
GENERIC = {"Kernel", "Kernel2", "device_kernel", "kernel"}
HEX = set("0123456789abcdefABCDEF")


def number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, str)):
        try:
            return input_share.ns(value)
        except (decimal.InvalidOperation, ValueError):
            return None
    return None


def balanced(s, i, open_c, close_c):
    depth = 0
    while i < len(s):
        if s[i] == open_c:
            depth += 1
        elif s[i] == close_c and depth > 0:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def normalise(name):
    s = name.lstrip()
    if s.startswith("void "):
        s = s[5:]
    out = ""
    i = 0
    while i < len(s):
        c = s[i]
        if out.endswith("operator") and (s[i:i + 2] == "()" or c in "<>=!+-*/%&|^~["):
            if s[i:i + 2] == "()":
                out += "()"
                i += 2
            else:
                while i < len(s) and s[i] in "<>=!+-*/%&|^~[]":
                    out += s[i]
                    i += 1
        elif c == "<":
            end = balanced(s, i, "<", ">")
            if out.split("::")[-1] in GENERIC:
                j = i + 1
                while j < end and s[j] not in ",<>":
                    j += 1
                more = j < len(s) and s[j] in ",<"
                out += s[i:j] + (", …>" if more else ">")
            else:
                out += "<>"
            i = end
        elif c == "(":
            i = balanced(s, i, "(", ")")
        elif (c == "0" and s[i + 1:i + 2] in ("x", "X") and s[i + 2:i + 3] and s[i + 2] in HEX
              and (i == 0 or not s[i - 1].isascii() or not s[i - 1].isalnum())):
            out += "0x"
            i += 2
            while i < len(s) and s[i] in HEX:
                i += 1
        else:
            out += c
            i += 1
    if len(out) > 3 and out.endswith(".kd"):
        out = out[:-3]
    stem = out.rstrip("0123456789")
    if len(stem) < len(out) and len(stem) > 1 and stem[-1] in "._#":
        out = stem[:-1]
    out = out.rstrip()
    return out if out else name


def union(spans):
    return input_share.union(spans)


def subtract_length(xs, ys):
    """|xs ∖ ys| for sorted, disjoint interval lists."""
    return sum(b - a for a, b in xs) - input_share.overlap(xs, ys)


def intersect(xs, ys):
    out = []
    i = j = 0
    while i < len(xs) and j < len(ys):
        a = max(xs[i][0], ys[j][0])
        b = min(xs[i][1], ys[j][1])
        if b > a:
            out.append([a, b])
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return out


DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "gpu_user_annotation", "cuda_sync"}


def is_api(name):
    if name.startswith("__cuda"):
        return True
    for prefix in ("cuda", "hip", "cu"):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            return rest[:1].isupper() and rest[:1].isascii()
    return False


def is_op(e, dur):
    name = e.get("name") or ""
    return dur > 0 and not is_api(name) and "ProfilerStep" not in name and e.get("cat") != "python_function"


def correlation(e):
    args = e.get("args")
    if not isinstance(args, dict):
        return None
    c = args.get("correlation")
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def host_threads(events):
    threads = {}
    for order, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = (e.get("cat") or "").lower()
        if cat in DEVICE_CATS:
            continue
        ts = number(e.get("ts"))
        dur = number(e.get("dur", 0)) or 0
        if ts is None:
            continue
        threads.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append((ts, -dur, order, e))
    for evs in threads.values():
        evs.sort(key=lambda x: (x[0], x[1], x[2]))
    return threads


def launching_ops(events):
    op_of = {}  # correlation id -> name of the deepest op around the launch
    for evs in host_threads(events).values():
        stack = []  # (end, name of the deepest op around, or None)
        for ts, neg, _, e in evs:
            dur = -neg
            while stack and stack[-1][0] <= ts:
                stack.pop()
            parent = stack[-1][1] if stack else None
            c = correlation(e)
            if c is not None and parent is not None and not is_op(e, dur):
                op_of.setdefault(c, parent)
            stack.append((ts + dur, (e.get("name") or "") if is_op(e, dur) else parent))
    ops = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or (e.get("cat") or "").lower() != "kernel":
            continue
        op = op_of.get(correlation(e))
        if op is None:
            continue
        o = ops.setdefault(op, [0, 0])
        o[0] += 1
        o[1] += number(e.get("dur", 0)) or 0
    return ops


def call_paths(events):
    paths = {}
    for evs in host_threads(events).values():
        stack = []  # (end, path of the deepest op around, or None)
        for ts, neg, _, e in evs:
            dur = -neg
            while stack and stack[-1][0] <= ts:
                stack.pop()
            parent = stack[-1][1] if stack else None
            here = parent
            name = e.get("name") or ""
            if is_op(e, dur):
                here = name if parent is None else parent + " > " + name
                p = paths.setdefault(here, [0, 0])
                p[0] += 1
                p[1] += dur
            stack.append((ts + dur, here))
    return paths


def side(path):
    events = input_share.load_events(path)
    windows, loading = input_share.windows_and_loading(events)
    kernels = {}
    outranking = []
    first = last = None
    kernel_ns = 0
    for e in events:
        if not isinstance(e, dict):
            continue
        ts = number(e.get("ts"))
        if ts is None:
            continue
        first = ts if first is None else min(first, ts)
        if e.get("ph") != "X":
            continue
        dur = number(e.get("dur", 0)) or 0
        last = ts + dur if last is None else max(last, ts + dur)
        cat = (e.get("cat") or "").lower()
        name = e.get("name") or ""
        if cat == "kernel":
            k = kernels.setdefault(normalise(name), [0, 0])
            k[0] += 1
            k[1] += dur
            kernel_ns += dur
            if "nccl" not in name.lower():
                outranking.append((ts, ts + dur))
        elif cat in ("gpu_memcpy", "memcpy") and any(x in name for x in ("DtoH", "DtoD", "PtoP")):
            outranking.append((ts, ts + dur))
    steps = len(windows) if windows is not None else 0
    if windows is None:
        windows = [[first, last]] if first is not None and last is not None and last > first else []
    window_ns = sum(b - a for a, b in windows)
    loading_in = intersect(union(loading), windows)
    input_wait = subtract_length(loading_in, union(outranking))
    n = max(len(windows), 1)
    return {
        "steps": steps,
        "windows": len(windows),
        "window_ns": window_ns,
        "mean_step_ns": window_ns // n,
        "input_wait_ns": input_wait,
        "kernel_ns": kernel_ns,
    }, kernels, call_paths(events), launching_ops(events)


def main(a, b):
    sa, ka, pa, oa = side(a)
    sb, kb, pb, ob = side(b)

    def pair(xa, xb):
        out = {}
        for key in set(xa) | set(xb):
            ca, ta = xa.get(key, [0, 0])
            cb, tb = xb.get(key, [0, 0])
            out[key] = {"a_count": ca, "a_total_ns": ta, "b_count": cb, "b_total_ns": tb}
        return out

    print(json.dumps({"a": sa, "b": sb, "kernels": pair(ka, kb), "paths": pair(pa, pb), "ops": pair(oa, ob)}, ensure_ascii=False))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.stderr.write("usage: compare-count.py A B\n")
        sys.exit(2)
