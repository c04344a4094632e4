#!/usr/bin/env python3
# xplane-count.py: an independent count of what an XSpace file should load as
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Decodes the protobuf wire format by hand (tests/xspace_wire.py) and applies
# the lane mapping documented in src/formats/cp-xplane-reader.h, then prints
# one line of counts that tests/test-xplane.c compares with the C reader.

import struct
import sys

from xspace_wire import fields, planes, s64, text


BOOKKEEPING = ("/host:metadata", "Task Environment", "/host:tfstreamz")
ML_LINES = ("Steps", "XLA Modules", "XLA Ops", "Async XLA Ops", "Framework Ops",
            "Framework Name Scope", "TensorFlow Ops", "TensorFlow Name Scope", "Launch Stats",
            "Source code", "Host Offload Ops", "Sparse Core Steps", "Sparse Core Modules",
            "Sparse Core Ops", "XLA TraceMe")


def plane_class(name):
    if name in BOOKKEEPING or name.startswith("/host:__ScopeRangeCallStack__"):
        return "book"
    if name == "/host:CPU":
        return "host"
    if name.startswith("/device:GPU:"):
        return "gpu"
    if name.startswith("/device:TPU:"):
        return "tpu"
    if name.startswith(("/device:CUSTOM:", "/custom:", "/virtualdevice:", "#Chip")):
        return "custom"
    if name.startswith("/host:") or name in ("Host CPUs", "Syscalls"):
        return "host"
    return "other"


def is_ml_line(name):
    for n in ML_LINES:
        if name == n or name.startswith(n + " - "):
            return True
    return False


def direction(name):
    if name.startswith("Memset"):
        return "memset"
    for kind, keys in (("htod", ("H2D", "HtoD", "HostToDevice")),
                       ("dtoh", ("D2H", "DtoH", "DeviceToHost")),
                       ("dtod", ("D2D", "DtoD", "DeviceToDevice")),
                       ("ptop", ("P2P", "PtoP", "PeerToPeer")),
                       ("other", ("H2H", "HtoH", "HostToHost"))):
        if any(k in name for k in keys):
            return kind
    return None


def side(kind):
    if kind in ("pageable", "pinned", "host"):
        return 1
    if kind in ("device", "array", "device_static"):
        return 2
    return 0


def details_direction(text):
    src = dst = None
    for tok in text.split():
        k, _, v = tok.partition(":")
        if k == "kind_src":
            src = v
        elif k == "kind_dst":
            dst = v
    a, b = side(src), side(dst)
    if (a, b) == (1, 2):
        return "htod"
    if (a, b) == (2, 1):
        return "dtoh"
    if (a, b) == (2, 2):
        return "dtod"
    return "other"


def main(path):
    b = open(path, "rb").read()
    lanes = {}        # (plane index, kind, key) -> slices
    counters = {}     # (plane index, name) -> samples
    events = aggregated = 0
    for pi, p in enumerate(planes(b)):
        name = p["name"]
        lines = p["lines"]
        stat_names = p["stats"]
        emeta = p["emeta"]
        klass = plane_class(name)
        if klass == "book" or not lines:
            continue

        def stat(span):
            mid = 0
            val = None
            kind = None
            for sf, sw, sv in fields(b, *span):
                if sf == 1:
                    mid = s64(sv)
                elif sf == 2:
                    kind, val = "num", struct.unpack("<d", sv)[0]
                elif sf in (3, 4):
                    kind, val = "num", sv
                elif sf == 5:
                    kind, val = "str", text(b, sv)
                elif sf == 6:
                    kind, val = "bytes", None
                elif sf == 7:
                    kind, val = "str", stat_names.get(sv)
            return stat_names.get(mid), kind, val

        for lv in lines:
            lid = did = 0
            lname = ""
            evs = []
            for lf, lw, lvv in fields(b, *lv):
                if lf == 1:
                    lid = s64(lvv)
                elif lf == 10:
                    did = s64(lvv)
                elif lf == 2:
                    lname = text(b, lvv)
                elif lf == 4:
                    evs.append(lvv)
            key = did if did != 0 else lid
            if lname == "_counters_":
                lclass = "counter"
            elif klass == "host":
                lclass = "host"
            elif klass == "gpu":
                ann = lid >= 0xDEADBEEF or is_ml_line(lname) or lname == "CUPTI overhead"
                lclass = "annotation" if ann else "kernel"
            elif klass in ("tpu", "custom"):
                lclass = "kernel" if lname in ("XLA Ops", "Sparse Core Ops") else "annotation"
            else:
                lclass = "annotation"
            for ev in evs:
                events += 1
                mid = 0
                agg = False
                stats = []
                for ef, ew, evv in fields(b, *ev):
                    if ef == 1:
                        mid = s64(evv)
                    elif ef == 2:
                        agg = False
                    elif ef == 5:
                        agg = True
                    elif ef == 4:
                        stats.append(evv)
                if agg:
                    aggregated += 1
                    continue
                m = emeta.get(mid, {"name": "", "display": "", "stats": []})
                merged = [stat(s) for s in m["stats"]] + [stat(s) for s in stats]
                ename = m["display"] or m["name"]
                for sn, sk, sv in merged:
                    if sn == "step_name" and sk == "str" and sv is not None:
                        ename = sv
                if lclass == "counter":
                    nums = [sv for sn, sk, sv in merged if sn is not None and sk == "num"]
                    if nums:
                        counters[(pi, ename)] = counters.get((pi, ename), 0) + 1
                    continue
                lane = (pi, lclass, key)
                if lclass == "kernel" and klass == "gpu":
                    names = dict((sn, (sk, sv)) for sn, sk, sv in merged if sn is not None)
                    memset = ("Memset_details" in names or "memset_details" in names
                              or m["name"].startswith("Memset"))
                    d = direction(m["name"])
                    memcpy = not memset and ("memcpy_details" in names or m["name"].startswith("Memcpy")
                                             or (m["name"].startswith("Copy") and d is not None))
                    if memset:
                        lane = (pi, "transfer", "memset")
                    elif memcpy:
                        if d is None:
                            det = names.get("memcpy_details")
                            d = details_direction(det[1] or "") if det and det[0] == "str" else "other"
                        lane = (pi, "transfer", d)
                lanes[lane] = lanes.get(lane, 0) + 1

    total = sum(lanes.values())
    kernels = sum(n for (p, k, key), n in lanes.items() if k == "kernel")
    transfers = sum(n for (p, k, key), n in lanes.items() if k == "transfer")
    annotations = sum(n for (p, k, key), n in lanes.items() if k == "annotation")
    print("lanes=%d slices=%d kernels=%d transfers=%d annotations=%d counters=%d samples=%d "
          "events=%d aggregated=%d" % (len(lanes) + len(counters), total, kernels, transfers,
                                       annotations, len(counters), sum(counters.values()),
                                       events, aggregated))


if __name__ == "__main__":
    main(sys.argv[1])
