#!/usr/bin/env python3
# kernel-busy.py: an independent count of GPU kernels per device in a Chrome
# trace / Kineto JSON capture (plain or gzip) or an XPlane file
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# For every device: the number of kernels ("ph": "X" events of category
# "kernel"), the sum of their durations and the length of the union of their
# intervals, in ns. The device is args.device when present, otherwise the pid
# when it is a small number (Kineto writes GPU events with pid = device).
# Times are read as exact decimals, as the C reader does.
#
# XPlane (decoded with tests/xplane-count.py's wire walker, not the C
# reader): kernels are the events of /device:GPU:N planes on stream lines
# (not the derived ML lines, not "CUPTI overhead"), minus copies and memsets;
# the device is the plane id; a time is the line's timestamp_ns plus
# floor(offset_ps / 1000). Only GPU planes are counted ("scope": "gpu").
#
# Kineto JSON also gets "device_syncs": the cuda_sync waits (Stream Sync,
# Event Sync, Context Sync...) with a device, which are syncs and never kernels.
# MTIA devices (category mtia_ccp_events, device = pid): dma_request events
# are copies, event_record / event_wait syncs, every other event a kernel.
#
# Prints one JSON object; tests/test-real-captures.c compares it with the
# analysis.

import decimal
import gzip
import importlib.util
import json
import os
import sys

from chrome_json import device_of, ns, open_text

def union_stats(spans):
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
    return out


def xplane(path):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("xplane_count", os.path.join(here, "xplane-count.py"))
    xc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(xc)
    with open(path, "rb") as f:
        b = f.read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    spans = {}
    for f, w, v in xc.fields(b, 0, len(b)):
        if f != 1 or w != 2:
            continue
        name = ""
        plane_id = 0
        lines = []
        stat_names = {}
        emeta = {}
        for pf, pw, pv in xc.fields(b, *v):
            if pf == 1:
                plane_id = xc.s64(pv)
            elif pf == 2:
                name = b[pv[0]:pv[1]].decode("utf-8", "replace")
            elif pf == 3:
                lines.append(pv)
            elif pf == 5:
                key, sname = 0, ""
                for mf, mw, mv in xc.fields(b, *pv):
                    if mf == 1:
                        key = xc.s64(mv)
                    elif mf == 2:
                        for qf, qw, qv in xc.fields(b, *mv):
                            if qf == 2:
                                sname = b[qv[0]:qv[1]].decode("utf-8", "replace")
                stat_names[key] = sname
            elif pf == 4:
                key = 0
                m = {"name": "", "stats": []}
                for mf, mw, mv in xc.fields(b, *pv):
                    if mf == 1:
                        key = xc.s64(mv)
                    elif mf == 2:
                        for qf, qw, qv in xc.fields(b, *mv):
                            if qf == 2:
                                m["name"] = b[qv[0]:qv[1]].decode("utf-8", "replace")
                            elif qf == 5:
                                m["stats"].append(qv)
                emeta[key] = m
        if xc.plane_class(name) != "gpu":
            continue

        def stat_name(span):
            for sf, sw, sv in xc.fields(b, *span):
                if sf == 1:
                    return stat_names.get(xc.s64(sv))
            return None

        for lv in lines:
            lid, lname, base = 0, "", 0
            evs = []
            for lf, lw, lvv in xc.fields(b, *lv):
                if lf == 1:
                    lid = xc.s64(lvv)
                elif lf == 2:
                    lname = b[lvv[0]:lvv[1]].decode("utf-8", "replace")
                elif lf == 3:
                    base = xc.s64(lvv)
                elif lf == 4:
                    evs.append(lvv)
            if lname == "_counters_" or lid >= 0xDEADBEEF or xc.is_ml_line(lname) or lname == "CUPTI overhead":
                continue
            for ev in evs:
                mid, off, dur, agg = 0, 0, 0, False
                stats = []
                for ef, ew, evv in xc.fields(b, *ev):
                    if ef == 1:
                        mid = xc.s64(evv)
                    elif ef == 2:
                        off, agg = xc.s64(evv), False
                    elif ef == 5:
                        agg = True
                    elif ef == 3:
                        dur = xc.s64(evv)
                    elif ef == 4:
                        stats.append(evv)
                if agg:
                    continue
                m = emeta.get(mid, {"name": "", "stats": []})
                names = set(stat_name(sp) for sp in m["stats"] + stats)
                if "Memset_details" in names or "memset_details" in names or m["name"].startswith("Memset"):
                    continue
                d = xc.direction(m["name"])
                if "memcpy_details" in names or m["name"].startswith("Memcpy") or \
                        (m["name"].startswith("Copy") and d is not None):
                    continue
                start = base + off // 1000
                end = base + (off + max(dur, 0)) // 1000
                spans.setdefault(plane_id, []).append((start, max(end, start)))
    return {"scope": "gpu", "devices": union_stats(spans)}


def is_json(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        head = f.read(4096)
    head = head.lstrip(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    return head[:1] in (b"{", b"[")


def main(path):
    if not is_json(path):
        json.dump(xplane(path), sys.stdout)
        sys.stdout.write("\n")
        return
    with open_text(path) as f:
        # Floats stay text; only kernel times are converted, exactly.
        doc = json.load(f, parse_float=str)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    spans = {}
    syncs = 0
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if isinstance(cat, str) and cat.lower() == "cuda_sync" and "ts" in e:
            # A wait Kineto records on a GPU stream: a sync, not a kernel.
            args = e.get("args")
            if isinstance(args, dict) and isinstance(args.get("device"), int) and args["device"] >= 0:
                syncs += 1
            continue
        if isinstance(cat, str) and cat.lower() == "mtia_ccp_events" and "ts" in e:
            # What an MTIA device ran: DMA requests are copies, event
            # records and waits syncs, the rest kernels.
            name = e.get("name")
            if name == "dma_request":
                continue
            if isinstance(name, str) and name.startswith("event_"):
                syncs += 1
                continue
        elif not isinstance(cat, str) or cat.lower() != "kernel":
            continue
        try:
            start = ns(e["ts"])
            dur = max(ns(e.get("dur", 0)), 0)
        except (KeyError, decimal.InvalidOperation, TypeError):
            continue
        spans.setdefault(device_of(e), []).append((start, start + dur))

    out = union_stats(spans)
    json.dump({"devices": out, "device_syncs": syncs}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
