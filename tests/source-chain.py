#!/usr/bin/env python3
# source-chain.py: an independent account of what is around each kernel's
# launch in a Kineto JSON capture (plain or gzip), from the raw events only
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A kernel is an "X" event of category kernel with an integer
# args.correlation; its launch is the host "X" event of another category
# (not on a pid that holds kernels) with the same correlation id. What is
# around the launch: every other "X" event on the launch's pid and tid
# whose span holds the launch's (ts <= launch ts, ts + dur >= launch end),
# innermost first (by start, the later first; at the same start the
# shorter first; at the same start and length the later in the file
# first). Times are exact decimals in ns.
#
# By module and by code: every "nn.Module: " python_function event around
# a launch counts the kernel once (a name repeated around one launch,
# once); the innermost python_function around it that is not a module and
# not a library frame (a name starting with "<", or holding "torch/",
# "site-packages/", "threading.py", "multiprocessing/", "runpy.py",
# "concurrent/" or "asyncio/") counts it for that frame.
#
# Prints one JSON object {"kernels": {CORRELATION: {"launch": NAME,
# "around": [NAME, ...], "categories": [CAT, ...]}}, "modules": {NAME:
# {"kernels": N, "time_ns": T}}, "code": {same}} for kernels with a launch.

import json
import sys

from chrome_json import ns, open_text


def corr_of(event):
    args = event.get("args")
    if not isinstance(args, dict):
        return None
    c = args.get("correlation")
    if isinstance(c, bool) or not isinstance(c, int):
        return None
    return c


LIBRARY = ("torch/", "site-packages/", "threading.py", "multiprocessing/", "runpy.py", "concurrent/", "asyncio/")


def library(name):
    return name.startswith("<") or any(part in name for part in LIBRARY)


def add(groups, name, dur):
    g = groups.setdefault(name, {"kernels": 0, "time_ns": 0})
    g["kernels"] += 1
    g["time_ns"] += dur


def main(path):
    with open_text(path) as f:
        doc = json.load(f, parse_float=str)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    kernels = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and
               (e.get("cat") or "").lower() == "kernel" and corr_of(e) is not None]
    device_pids = {str(e.get("pid")) for e in kernels}
    threads, launches = {}, {}
    for order, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X" or str(e.get("pid")) in device_pids:
            continue
        if (e.get("cat") or "").lower() == "kernel":
            continue
        if e.get("ts") is None:
            continue
        ts = ns(e.get("ts"))
        dur = ns(e.get("dur", 0)) or 0
        rec = (ts, dur, order, e)
        threads.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(rec)
        c = corr_of(e)
        if c is not None:
            launches.setdefault(c, rec)
    out, modules, code = {}, {}, {}
    for k in kernels:
        c = corr_of(k)
        if c not in launches:
            continue
        ts, dur, order, launch = launches[c]
        key = (str(launch.get("pid")), str(launch.get("tid")))
        around = [r for r in threads[key] if r[2] != order and r[0] <= ts and r[0] + r[1] >= ts + dur]
        around.sort(key=lambda r: (r[0], -r[1], r[2]), reverse=True)
        out[str(c)] = {"launch": launch.get("name") or "",
                       "around": [r[3].get("name") or "" for r in around],
                       "categories": [r[3].get("cat") or "" for r in around]}
        kdur = ns(k.get("dur", 0)) or 0
        frames = [r[3].get("name") or "" for r in around if r[3].get("cat") == "python_function"]
        for name in dict.fromkeys(n for n in frames if n.startswith("nn.Module: ")):
            add(modules, name, kdur)
        user = [n for n in frames if not n.startswith("nn.Module: ") and not library(n)]
        if user:
            add(code, user[0], kdur)
    print(json.dumps({"kernels": out, "modules": modules, "code": code}, ensure_ascii=False))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: source-chain.py CAPTURE\n")
        sys.exit(2)
    main(sys.argv[1])
