#!/usr/bin/env python3
# launch-count.py: an independent count of the launch statistics of a
# Kineto JSON capture (plain or gzip), from the raw events only
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A device op is an "X" event of category kernel, gpu_memcpy, gpu_memset,
# Memcpy or Memset (any case), or an MTIA device event (mtia_ccp_events)
# other than its event records and waits, with an integer args.correlation. Its launch
# is the host "X" event (any other category except cuda_sync, on a pid that
# holds no device ops) with the same correlation id, whatever the
# timestamps say: a graph launch (cudaGraphLaunch / hipGraphLaunch) is the
# launch of every op of the graph, which all carry its correlation id. An
# op with no such host event is not launched.
#
# Per device (args.device, else the pid): "launched" (ops with a launch),
# "short" and "short_time_ns" (HTA's short kernels: launch call <= 50 us and
# device time < launch time), and "graph" (ops launched by a graph launch).
# Times are exact decimals in ns, as the C reader reads them.
#
# Prints one JSON object {"devices": {...}}.

import gzip
import json
import sys

from chrome_json import device_of, ns

DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
SHORT_LAUNCH_NS = 50000


def corr_of(event):
    args = event.get("args")
    if not isinstance(args, dict):
        return None
    c = args.get("correlation")
    if isinstance(c, bool) or not isinstance(c, int):
        return None
    return c


def main(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        doc = json.load(f, parse_float=str)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    xs = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e]
    dev_ops = []
    dev_pids = set()
    for e in xs:
        cat = e.get("cat")
        if isinstance(cat, str) and cat.lower() == "mtia_ccp_events":
            dev_pids.add(str(e.get("pid")))
            name = e.get("name")
            if corr_of(e) is not None and not (isinstance(name, str) and name.startswith("event_")):
                dev_ops.append(e)
        elif isinstance(cat, str) and cat.lower() in DEVICE_CATS:
            dev_pids.add(str(e.get("pid")))
            if corr_of(e) is not None:
                dev_ops.append(e)
    launches = {}
    for e in xs:
        cat = e.get("cat")
        if not isinstance(cat, str) or cat.lower() in DEVICE_CATS or \
                cat.lower() in ("cuda_sync", "mtia_ccp_events"):
            continue
        if str(e.get("pid")) in dev_pids:
            continue
        c = corr_of(e)
        if c is not None:
            launches.setdefault(c, e)
    out = {}
    for e in dev_ops:
        h = launches.get(corr_of(e))
        if h is None:
            continue
        d = out.setdefault(str(device_of(e)), {"launched": 0, "short": 0, "short_time_ns": 0, "graph": 0})
        d["launched"] += 1
        dur = max(ns(e.get("dur", 0)), 0)
        cpu = max(ns(h.get("dur", 0)), 0)
        if cpu <= SHORT_LAUNCH_NS and dur < cpu:
            d["short"] += 1
            d["short_time_ns"] += dur
        if h.get("name") in ("cudaGraphLaunch", "hipGraphLaunch"):
            d["graph"] += 1
    json.dump({"devices": out}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
