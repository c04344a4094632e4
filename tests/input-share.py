#!/usr/bin/env python3
# input-share.py: an independent count of the data-loading share of step time
# in a PyTorch / Kineto Chrome-trace capture (plain or gzip)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# What it counts, from the raw events only (no code shared with the C
# analysis):
#
#   steps      the "ProfilerStep#N" host slices ("ph": "X"), by start;
#   windows    as the TensorBoard plugin builds them: a step's window starts
#              at max(end of the previous window, its marker's start) and
#              ends at max(its marker's end, the end of the device work
#              (kernels, copies, memsets) whose launch call starts inside the
#              marker), the launch found by the "correlation" argument the
#              runtime call and the device op share; trailing steps that
#              launched nothing, and a last step that launched fewer than
#              0.8x the device ops of the one before, are left out;
#   loading    the host slices of the DataLoader iterator
#              ("enumerate(DataLoader)#...__next__", "enumerate(DataPipe)#...")
#              as a union of intervals;
#   share      100 * |loading ∩ windows| / sum of window lengths.
#
# Times are read as exact decimals (µs in the file, ns here). Prints one JSON
# object: {"steps": N, "window_ns": T, "loading_ns": L, "percent": P}; a
# capture without ProfilerStep markers prints "steps": 0 and no percent.

import json
import sys

from chrome_json import ns, open_text

DEVICE_CATS = {"kernel", "memcpy", "memset", "gpu_memcpy", "gpu_memset"}
RUNTIME_CATS = {"runtime", "cuda_runtime", "cuda_driver"}
LAST_STEP_RATIO = 0.8


def is_loader(name):
    return (name.startswith("enumerate(DataLoader)#") and "__next__" in name) or \
        name.startswith("enumerate(DataPipe)#")


def union(spans):
    out = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def overlap(xs, ys):
    """Length of the intersection of two sorted, disjoint interval lists."""
    i = j = 0
    total = 0
    while i < len(xs) and j < len(ys):
        a = max(xs[i][0], ys[j][0])
        b = min(xs[i][1], ys[j][1])
        if b > a:
            total += b - a
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return total


def load_events(path):
    with open_text(path) as f:
        doc = json.load(f)
    return doc.get("traceEvents", []) if isinstance(doc, dict) else doc


def windows_and_loading(events):
    """(windows, loading): the step windows as [start, end] lists in ns, in
    order, and the DataLoader spans as (start, end); None for the windows
    when the capture has no ProfilerStep markers."""

    markers = []
    loading = []
    launches = {}   # correlation -> launch start
    device_ops = {}  # correlation -> [end, ...]
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        name = e.get("name") or ""
        cat = (e.get("cat") or "").lower()
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        corr = args.get("correlation")
        if name.startswith("ProfilerStep#"):
            markers.append((start, end))
        elif is_loader(name):
            loading.append((start, end))
        if corr is None:
            continue
        if cat in RUNTIME_CATS:
            launches[corr] = start
        elif cat in DEVICE_CATS:
            device_ops.setdefault(corr, []).append(end)

    markers.sort()
    if not markers:
        return None, loading

    # Device work launched from inside each marker.
    launch_list = sorted((t, c) for c, t in launches.items() if c in device_ops)
    n_ops = [0] * len(markers)
    dev_end = [None] * len(markers)
    for t, c in launch_list:
        for k, (ms, me) in enumerate(markers):
            if ms <= t <= me:
                n_ops[k] += len(device_ops[c])
                e = max(device_ops[c])
                dev_end[k] = e if dev_end[k] is None else max(dev_end[k], e)
                break

    last = len(markers) - 1
    while last >= 0 and n_ops[last] == 0:
        last -= 1
    if last >= 1 and n_ops[last] < LAST_STEP_RATIO * n_ops[last - 1]:
        last -= 1

    windows = []
    prev_end = None
    for k in range(last + 1):
        ms, me = markers[k]
        start = ms if prev_end is None else max(prev_end, ms)
        end = me if dev_end[k] is None else max(me, dev_end[k])
        if end <= start:
            continue
        windows.append([start, end])
        prev_end = end
    return windows, loading


def main(path):
    windows, loading = windows_and_loading(load_events(path))
    if windows is None:
        print(json.dumps({"steps": 0}))
        return
    window_ns = sum(b - a for a, b in windows)
    loading_ns = overlap(union(loading), union(windows))
    print(json.dumps({
        "steps": len(windows),
        "window_ns": window_ns,
        "loading_ns": loading_ns,
        "percent": 100.0 * loading_ns / window_ns if window_ns else 0.0,
    }))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: input-share.py CAPTURE\n")
        sys.exit(2)
    main(sys.argv[1])
