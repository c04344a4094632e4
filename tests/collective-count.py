#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Independent count of the collectives of a job's ranks, from raw events.

    collective-count.py RANK_FILE...

Reads each Kineto capture (.json or .json.gz) with Python's json module,
takes its rank from distributedInfo (else the order given), and lists its
collectives: complete events in category "kernel" whose name starts with
nccl/rccl, or, when a rank has none, host events named "gloo:*" or
"nccl:*". The n-th collective of every rank is one operation (the default
process group only). Times are the capture's own clock (no alignment), in ns,
ts and dur read as decimals and rounded to the nearest ns as the reader does.

Prints JSON: {"ranks": [rank...], "step_ns": [...], "n_steps": [...],
"collectives": [{"arrival_ns": [...], "end_ns": [...], "skew_ns": N,
"last_rank": R}]}, arrivals in rank order; step_ns is the sum of each
rank's ProfilerStep#N durations and n_steps their number.
"""

import decimal
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=decimal.Decimal)


def ns(v):
    return int((decimal.Decimal(v) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def collectives(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    dev, host = [], []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        name = str(e.get("name", ""))
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        low = name.lower()
        if e.get("cat") == "kernel" and (low.startswith("nccl") or low.startswith("rccl")):
            dev.append((start, end))
        elif name.startswith("gloo:") or name.startswith("nccl:"):
            host.append((start, end))
    return sorted(dev if dev else host)


def steps(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    durs = [ns(e.get("dur", 0)) for e in events
            if isinstance(e, dict) and e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    return sum(durs), len(durs)


def main():
    ranks = []
    for i, path in enumerate(sys.argv[1:]):
        doc = load(path)
        info = doc.get("distributedInfo", {}) if isinstance(doc, dict) else {}
        ranks.append((int(info.get("rank", i)), collectives(doc), steps(doc)))
    ranks.sort()
    n = min(len(c) for _, c, _ in ranks)
    out = []
    for k in range(n):
        arr = [c[k][0] for _, c, _ in ranks]
        end = [c[k][1] for _, c, _ in ranks]
        last = max(range(len(arr)), key=lambda j: (arr[j], -j))
        out.append({"arrival_ns": arr, "end_ns": end, "skew_ns": max(arr) - min(arr),
                    "last_rank": ranks[last][0]})
    json.dump({"ranks": [r for r, _, _ in ranks], "step_ns": [st[0] for _, _, st in ranks],
               "n_steps": [st[1] for _, _, st in ranks], "collectives": out}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
