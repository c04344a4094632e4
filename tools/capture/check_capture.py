#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Summarises PyTorch profiler captures, to check a recording holds what it should.

For each .json / .json.gz capture it prints: size, whether it is Kineto
output (schemaVersion, traceEvents), event counts by category, host threads,
ProfilerStep#N steps, and the share of step time spent in DataLoader spans,
communication ops, synchronising calls and memcpy, plus kernel facts when
there are GPU events.  Standard library only.  Exit status 1 when a file is
not a Kineto trace with at least one ProfilerStep.

    check_capture.py [--json] FILE...
"""

import argparse
import collections
import gzip
import json
import os
import re
import sys

STEP_RE = re.compile(r"ProfilerStep\s*#\s*(\d+)")
DATALOADER_RE = re.compile(r"^enumerate\((DataLoader|DataPipe)\)#")
COMM_RE = re.compile(r"^(nccl|gloo):|^c10d::|^record_param_comms$|^nccl", re.I)
SYNC_RE = re.compile(r"Synchronize$|^aten::item$|^aten::_local_scalar_dense$|^Stream Sync$")
TC_PATTERNS = ("16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2",
               "direct_group", "first_layer_wgrad_kernel", "h1688", "h884", "hmma",
               "i16832", "i8816", "s884", "s1688", "xmma_gemm", "xmma_implicit_gemm",
               "xmma_sparse_conv", "xmma_sparse_gemm",
               "xmma_warp_specialized_implicit_gemm", "gmma", "tensorop", "nvjet")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def union_length(intervals, lo, hi):
    total, end = 0.0, lo
    for s, e in sorted(intervals):
        s, e = max(s, lo, end), min(e, hi)
        if e > s:
            total += e - s
            end = e
    return total


def summarise(path):
    doc = load(path)
    out = {"file": os.path.basename(path), "bytes": os.path.getsize(path)}
    if isinstance(doc, list):
        events, out["format"] = doc, "legacy-array"
    else:
        events = doc.get("traceEvents", [])
        out["format"] = "kineto" if "schemaVersion" in doc else "chrome-object"
        out["schemaVersion"] = doc.get("schemaVersion")
        out["devices"] = [d.get("name") for d in doc.get("deviceProperties", [])]
        if "chokepoint_capture" in doc:
            out["capture"] = doc["chokepoint_capture"]
    out["events"] = len(events)
    cats = collections.Counter(e.get("cat", "") for e in events if e.get("ph") == "X")
    out["categories"] = dict(sorted(cats.items()))

    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e.get("pid"), e.get("tid"))] = e.get("args", {}).get("name")
    spans = [e for e in events if e.get("ph") == "X" and "dur" in e]
    host = collections.Counter((e["pid"], e["tid"]) for e in spans
                               if e.get("cat", "cpu_op") in ("cpu_op", "user_annotation",
                                                             "python_function", "cuda_runtime",
                                                             "cuda_driver", ""))
    out["host_threads"] = [names.get(k, "%s/%s" % k) for k in host]

    steps = []
    for e in spans:
        m = STEP_RE.search(e.get("name", ""))
        if m:
            steps.append((int(m.group(1)), float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    steps.sort()
    out["steps"] = [s[0] for s in steps]
    if steps:
        lo, hi = steps[0][1], steps[-1][2]
        total = sum(e - s for _, s, e in steps)
        out["mean_step_us"] = round(total / len(steps), 1)

        def share(pred):
            ivs = [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in spans
                   if pred(e)]
            return round(sum(union_length(ivs, s, e) for _, s, e in steps) / total, 4)

        out["dataloader_share"] = share(lambda e: DATALOADER_RE.match(e.get("name", "")))
        out["comm_share"] = share(lambda e: COMM_RE.match(e.get("name", ""))
                                  and e.get("cat") != "kernel")
        out["sync_share"] = share(lambda e: SYNC_RE.search(e.get("name", "")))
        out["host_copy_share"] = share(lambda e: e.get("name") in ("aten::copy_", "aten::to",
                                                                   "aten::_to_copy")
                                       and e.get("cat") == "cpu_op")
        out["ops_per_step"] = round(cats.get("cpu_op", 0) / len(steps), 1)
    dl = collections.Counter(e["name"] for e in spans if DATALOADER_RE.match(e.get("name", "")))
    out["dataloader_spans"] = dict(dl)

    kernels = [e for e in spans if e.get("cat") == "kernel"]
    if kernels:
        ktime = sum(float(e["dur"]) for e in kernels)
        tc = sum(float(e["dur"]) for e in kernels
                 if any(p in e["name"] for p in TC_PATTERNS))
        out["kernels"] = len(kernels)
        out["kernel_us"] = round(ktime, 1)
        out["tc_kernel_share"] = round(tc / ktime, 4) if ktime else 0.0
        out["short_kernels_under_10us"] = sum(1 for e in kernels if float(e["dur"]) < 10)
        if steps:
            out["gpu_busy_share"] = round(
                union_length([(float(e["ts"]), float(e["ts"]) + float(e["dur"]))
                              for e in kernels], lo, hi) / (hi - lo), 4)
        top = collections.Counter()
        for e in kernels:
            top[e["name"][:80]] += float(e["dur"])
        out["top_kernels"] = [k for k, _ in top.most_common(5)]
    memcpy = collections.Counter(e["name"] for e in spans if e.get("cat") == "gpu_memcpy")
    if memcpy:
        out["memcpy"] = dict(memcpy)
    syncs = collections.Counter(e["name"] for e in spans
                                if e.get("cat") in ("cuda_runtime", "cuda_sync")
                                and "ynchronize" in e["name"] or e.get("cat") == "cuda_sync")
    if syncs:
        out["sync_calls"] = dict(syncs)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    status = 0
    for path in args.files:
        try:
            info = summarise(path)
        except (OSError, ValueError, EOFError) as exc:
            print("%s: cannot read: %s" % (path, exc), file=sys.stderr)
            status = 1
            continue
        if info["format"] != "kineto" or not info.get("steps"):
            status = 1
        if args.json:
            print(json.dumps(info, sort_keys=True))
        else:
            print(info["file"])
            for key in sorted(k for k in info if k != "file"):
                print("  %-26s %s" % (key, info[key]))
    return status


if __name__ == "__main__":
    sys.exit(main())
