#!/usr/bin/env python3
# kernel-busy.py: an independent count of GPU kernels per device in a Chrome
# trace / Kineto JSON capture (plain, gzip or zstd is not supported here)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# For every device: the number of kernels ("ph": "X" events of category
# "kernel"), the sum of their durations and the length of the union of their
# intervals, in ns. The device is args.device when present, otherwise the pid
# when it is a small number (Kineto writes GPU events with pid = device).
# Times are read as exact decimals, as the C reader does. Prints one JSON
# object; tests/test-real-captures.c compares it with `chokepoint diagnose`.

import decimal
import gzip
import json
import sys


def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "rt", encoding="utf-8", errors="replace")


def ns(value):
    if isinstance(value, str):
        value = decimal.Decimal(value.strip())
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def device_of(event):
    args = event.get("args")
    if isinstance(args, dict):
        d = args.get("device")
        if isinstance(d, int) and d >= 0:
            return d
    pid = event.get("pid")
    if isinstance(pid, int) and 0 <= pid < 4096:
        return pid
    return 0


def main(path):
    with open_text(path) as f:
        # Floats stay text; only kernel times are converted, exactly.
        doc = json.load(f, parse_float=str)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    spans = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if not isinstance(cat, str) or cat.lower() != "kernel":
            continue
        try:
            start = ns(e["ts"])
            dur = max(ns(e.get("dur", 0)), 0)
        except (KeyError, decimal.InvalidOperation, TypeError):
            continue
        spans.setdefault(device_of(e), []).append((start, start + dur))

    out = {}
    for dev, s in spans.items():
        s.sort()
        busy = 0
        cur_s, cur_e = None, None
        for a, b in s:
            if cur_e is None or a > cur_e:
                if cur_e is not None:
                    busy += cur_e - cur_s
                cur_s, cur_e = a, b
            elif b > cur_e:
                cur_e = b
        if cur_e is not None:
            busy += cur_e - cur_s
        out[str(dev)] = {
            "kernels": len(s),
            "kernel_time_ns": sum(b - a for a, b in s),
            "kernel_busy_ns": busy,
        }
    json.dump({"devices": out}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
