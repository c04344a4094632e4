#!/usr/bin/env python3
# memory-count.py: an independent count of the allocator events ("[memory]")
# in Chrome trace / Kineto JSON captures (plain or gzip)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Kineto writes one thread-scoped instant per allocation and free when
# profile_memory=True: "ph": "i", "name": "[memory]", args "Device Type",
# "Device Id", "Bytes" (negative for a free), and in newer versions "Addr",
# "Total Allocated" and "Total Reserved". Per device (type, id):
#   events          the events with an integer Device Type and Bytes
#   peak_allocated  max of Total Allocated; without it on every event, the
#                   max of the running sum of Bytes in time order
#   peak_reserved   max of Total Reserved, null when no event has it
#   totals_known    every event had Total Allocated
# Global ("g") and process ("p") scoped instants are not thread events and
# are left out, as the reader does.
#
# XPlane captures (decoded with tests/xspace_wire.py, not the C reader):
# TensorFlow's and XLA's "MemoryAllocation" / "MemoryDeallocation" events
# on the host planes' lines, with stats allocator_name ("GPU_0_bfc" is
# device type 1, id 0; "cpu", "mklcpu" and names with "host" are the host,
# -1; others are left out), allocation_bytes (else requested_bytes) and
# bytes_allocated, the allocator's total after the event. Per device:
# events, peak_allocated (max of bytes_allocated; without it on every
# event, the running sum as above), totals_known, and peak_reserved null
# (the BFC allocator reports none to compare).
#
# Arguments: files or folders (searched for *.json, *.json.gz and
# *.xplane.pb). Prints
# one JSON object {path: {"devices": [...]}} for the files that have at
# least one event; tests/test-memory.c compares it with the model.

import decimal
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace_wire import fields, planes, stat  # noqa: E402


def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "rt", encoding="utf-8", errors="replace")


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def ts_key(v):
    if isinstance(v, str):
        return decimal.Decimal(v.strip())
    return decimal.Decimal(repr(v)) if isinstance(v, float) else decimal.Decimal(v)


def peak_allocated(evs):
    """(totals known, peak allocated) of (bytes, total after or None)
    events in time order: the max of the totals when every event has one,
    else the max of the running sum of bytes."""
    if all(x[1] is not None for x in evs):
        return True, max(x[1] for x in evs)
    run, peak = 0, None
    for x in evs:
        run += x[0]
        peak = run if peak is None else max(peak, run)
    return False, peak


def count(path):
    with open_text(path) as f:
        text = f.read()
    if '"[memory]"' not in text:
        return None
    doc = json.loads(text)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    devices = {}
    for order, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "i" or e.get("name") != "[memory]":
            continue
        if e.get("s") in ("g", "p"):
            continue
        args = e.get("args")
        if not isinstance(args, dict) or "ts" not in e:
            continue
        dtype = as_int(args.get("Device Type"))
        nbytes = as_int(args.get("Bytes"))
        did = as_int(args.get("Device Id"))
        if did is None:
            did = -1
        if dtype is None or nbytes is None or dtype < 0 or did < -1:
            continue
        devices.setdefault((dtype, did), []).append(
            (ts_key(e["ts"]), order, nbytes, as_int(args.get("Total Allocated")),
             as_int(args.get("Total Reserved"))))
    out = []
    for (dtype, did), evs in sorted(devices.items()):
        evs.sort(key=lambda x: (x[0], x[1]))
        totals, peak_alloc = peak_allocated([(x[2], x[3]) for x in evs])
        reserved = [x[4] for x in evs if x[4] is not None]
        out.append({"device_type": dtype, "device_id": did, "events": len(evs),
                    "totals_known": totals, "peak_allocated": peak_alloc,
                    "peak_reserved": max(reserved) if reserved else None})
    return {"devices": out} if out else None


def allocator_device(name):
    m = re.match(r"GPU_(\d+)_", name)
    if m:
        n = int(m.group(1))
        return (1, n) if n <= 32767 else None
    if name.lower() == "cpu" or "host" in name or name.startswith("mklcpu"):
        return (0, -1)
    return None


def count_xplane(path):
    with open(path, "rb") as f:
        b = f.read()
    if b"MemoryAllocation" not in b and b"MemoryDeallocation" not in b:
        return None
    devices = {}
    for p in planes(b):
        if not p["name"].startswith("/host:") or p["name"] == "/host:metadata":
            continue
        kinds = {k: m["name"] for k, m in p["emeta"].items()
                 if m["name"] in ("MemoryAllocation", "MemoryDeallocation")}
        if not kinds:
            continue
        for line in p["lines"]:
            for lf, lw, lv in fields(b, *line):
                if lf != 4:
                    continue
                meta, stats = None, {}
                for ef, ew, ev in fields(b, *lv):
                    if ef == 1:
                        meta = ev
                    elif ef == 4:
                        k, v = stat(b, ev, p["stats"])
                        stats[k] = v
                if meta not in kinds:
                    continue
                dev = allocator_device(stats.get("allocator_name") or "")
                nbytes = stats.get("allocation_bytes")
                if not isinstance(nbytes, int) or nbytes < 0:
                    nbytes = stats.get("requested_bytes")
                if dev is None or not isinstance(nbytes, int) or nbytes < 0:
                    continue
                if kinds[meta] == "MemoryDeallocation":
                    nbytes = -nbytes
                total = stats.get("bytes_allocated")
                devices.setdefault(dev, []).append((nbytes, total if isinstance(total, int) else None))
    out = []
    for (dtype, did), evs in sorted(devices.items()):
        totals, peak = peak_allocated(evs)
        out.append({"device_type": dtype, "device_id": did, "events": len(evs),
                    "totals_known": totals, "peak_allocated": peak, "peak_reserved": None})
    return {"devices": out} if out else None


def main():
    result = {}
    paths = []
    for arg in sys.argv[1:]:
        if os.path.isdir(arg):
            for root, _, names in os.walk(arg):
                for n in names:
                    if n.endswith(".json") or n.endswith(".json.gz") or n.endswith(".xplane.pb"):
                        paths.append(os.path.join(root, n))
        else:
            paths.append(arg)
    for p in sorted(paths):
        try:
            r = count_xplane(p) if p.endswith(".xplane.pb") else count(p)
        except (ValueError, OSError, EOFError):
            continue
        if r is not None:
            result[p] = r
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
