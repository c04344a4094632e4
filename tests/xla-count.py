#!/usr/bin/env python3
# xla-count.py: an independent count of XLA steps, warm-up and async waits
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Decodes an XSpace by hand (tests/xspace_wire.py) and prints
# JSON that tests/test-xla.c compares with the analysis:
#   steps     executions of the repeated top-level module: the most executed
#             name on the XLA Modules lines (of any device), else of the host
#             events that run an executable (<module>:XLA GPU module,
#             GpuExecutable::ExecuteThunks by module_name), counted per lane
#             and joined by execution number
#             and joined by execution number, less the leading executions
#             that are a warm-up (tests/steady.py)
#   warmup_ns from the first event of the capture to the first steady step
#   kinds     per device plane (/device:GPU:N, /device:TPU:N): "gpu" or "tpu"
#   devices   per device with an XLA Modules line: its own windows (each
#             execution until the next starts), the time inside them with an
#             XLA op running that is not an async wait (busy_ns), and with an
#             async op running (async_ns): copy-start/-done and other
#             -start/-done ops whose hlo_category is not a collective
#             or send/recv; async_ops counts those ops in the whole capture.
#   breakdown with XLA Modules lines: the device categories of the flattened
#             breakdown inside the shared windows (the devices' executions
#             joined by number): compute_16 (ops whose name says 16-bit),
#             compute_32 (other compute), async_wait (async ops while no
#             compute runs), collectives (collective ops while neither runs).

import json
import sys

from steady import warmup_count
from xspace_wire import fields, planes as read_planes, s64, text

HALF = ("half", "fp16", "f16", "bfloat16", "h884", "h1688", "h16816", "hmma", "fp8", "e4m3", "e5m2")
COLLECTIVE_WORDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                    "collective-permute", "collective-broadcast", "send", "recv")


def tensile_half(name):
    """AMD Tensile / hipBLASLt GEMM "Cijk_Ailk_Bljk_BBS_...": the fourth
    field is the data types; B (bf16), H (half) or F8 first is 16/8-bit."""
    if not name.startswith("Cijk_"):
        return False
    parts = name.split("_")
    t = parts[3] if len(parts) > 3 else ""
    return (len(t) > 1 and t[0] in "BH" and t[1].isupper()) or t.startswith(("F8", "B8"))


BOOK = ("/host:metadata", "Task Environment", "/host:tfstreamz")


def union(iv):
    out = []
    for s, e in sorted(x for x in iv if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def overlap(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            t += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def overlap_set(a, b):
    """U(a) ∩ U(b) as intervals."""
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            out.append([s, e])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def windows(spans):
    """spans: [(start, end)] by start; TB rule start=max(prev end, start)."""
    out = []
    prev = None
    for s, e in spans:
        st = s if prev is None else max(prev, s)
        if e > st:
            out.append((st, e))
            prev = e
    return out


def numbered_windows(numbered):
    """numbered: [((start, end), number)] by start; windows() keeping each
    window's number."""
    out = []
    prev = None
    for (s, e), k in numbered:
        st = s if prev is None else max(prev, s)
        if e > st:
            out.append(((st, e), k))
            prev = e
    return out


def module_spans(execs):
    """Each execution until the next starts, the last until it ends."""
    out = []
    for k, (s, e) in enumerate(execs):
        end = max(e, execs[k + 1][0]) if k + 1 < len(execs) else e
        out.append((s, end))
    return out


def main(path):
    b = open(path, "rb").read()
    planes = read_planes(b)
    start_time = None
    for p in planes:
        if p["name"] == "Task Environment":
            for sp in p["pstats"]:
                mid = val = None
                for sf, sw, sv in fields(b, *sp):
                    if sf == 1:
                        mid = s64(sv)
                    elif sf in (3, 4):
                        val = sv
                if p["stats"].get(mid) == "profile_start_time":
                    start_time = val

    def str_stats(p, spans):
        out = {}
        for span in spans:
            mid, val = 0, None
            for sf, sw, sv in fields(b, *span):
                if sf == 1:
                    mid = s64(sv)
                elif sf == 5:
                    val = text(b, sv)
                elif sf == 7:
                    val = p["stats"].get(sv)
            if val is not None:
                out[p["stats"].get(mid)] = val
        return out

    origin = None
    kinds = {}          # device -> "gpu" or "tpu", from the plane name
    module_lines = []   # (device, [(name, start, end)])
    op_lines = {}       # device -> [(start, end, async)]
    host_lines = []     # [(name or key, start, end)]
    for p in planes:
        pname = p["name"]
        if pname in BOOK or pname.startswith("/host:__ScopeRangeCallStack__"):
            continue
        device = None
        for pre in ("/device:GPU:", "/device:TPU:"):
            if pname.startswith(pre) and pname[len(pre):].isdigit():
                device = int(pname[len(pre):])
                kinds[str(device)] = pre[len("/device:"):-1].lower()
        host = pname.startswith("/host:")
        for lv in p["lines"]:
            lname, base, evs = "", 0, []
            for lf, lw, lvv in fields(b, *lv):
                if lf == 2:
                    lname = text(b, lvv)
                elif lf == 3:
                    base = s64(lvv)
                elif lf == 4:
                    evs.append(lvv)
            if start_time is not None and base < start_time // 2:
                base += start_time
            if lname == "_counters_":
                continue
            mods, ops, hosts = [], [], []
            for ev in evs:
                mid = off = dur = 0
                agg = False
                st = []
                for ef, ew, evv in fields(b, *ev):
                    if ef == 1:
                        mid = s64(evv)
                    elif ef == 2:
                        off = s64(evv)
                    elif ef == 3:
                        dur = s64(evv)
                    elif ef == 5:
                        agg = True
                    elif ef == 4:
                        st.append(evv)
                if agg:
                    continue
                m = p["emeta"].get(mid, {"name": "", "display": "", "stats": []})
                s = base + off // 1000
                e = base + (off + dur) // 1000
                origin = s if origin is None else min(origin, s)
                name = m["display"] or m["name"]
                if device is not None and lname == "XLA Modules":
                    mods.append((name, s, e))
                elif device is not None and lname == "XLA Ops":
                    cat = str_stats(p, m["stats"] + st).get("hlo_category", "")
                    asy = ((cat.endswith("-done") or cat.endswith("-start"))
                           and not any(wd in cat for wd in COLLECTIVE_WORDS))
                    coll = any(wd in cat for wd in COLLECTIVE_WORDS)
                    half = any(h in name.lower() for h in HALF) or tensile_half(name)
                    ops.append((s, e, asy, coll, half))
                elif host:
                    if name.endswith(":XLA GPU module"):
                        hosts.append((name, s, e))
                    elif name == "GpuExecutable::ExecuteThunks":
                        hosts.append((str_stats(p, m["stats"] + st).get("module_name", name), s, e))
            if mods:
                module_lines.append((device, mods))
            if ops:
                op_lines.setdefault(device, []).extend(ops)
            if hosts:
                host_lines.append(hosts)

    def pick(lines):
        count, time = {}, {}
        for evs in lines:
            for n, s, e in evs:
                count[n] = count.get(n, 0) + 1
                time[n] = time.get(n, 0) + e - s
        best = None
        for n in count:
            if count[n] >= 2 and (best is None or (count[n], time[n]) > (count[best], time[best])):
                best = n
        return best

    result = {"steps": 0, "warmup_ns": 0, "devices": {}, "kinds": kinds}
    per_number = {}
    dev_spans = []
    if module_lines:
        want = pick([m for d, m in module_lines])
        for device, mods in module_lines:
            execs = sorted((s, e) for n, s, e in mods if n == want)
            spans = module_spans(execs)
            for k, (s, e) in enumerate(spans):
                lo, hi = per_number.get(k, (s, e))
                per_number[k] = (min(lo, s), max(hi, e))
            dev_spans.append((device, list(enumerate(spans))))
    elif host_lines:
        want = pick(host_lines)
        for evs in host_lines:
            execs = sorted((s, e) for n, s, e in evs if n == want)
            for k, (s, e) in enumerate(execs):
                lo, hi = per_number.get(k, (s, e))
                per_number[k] = (min(lo, s), max(hi, e))
    # The steady window: the leading executions that are a warm-up
    # (steady.py) are left out, on every device.
    warm = set()
    win = []
    if per_number:
        numbered = sorted((v, k) for k, v in per_number.items())
        kept = numbered_windows(numbered)
        n_warm = warmup_count([e - s for (s, e), k in kept])
        warm = set(k for (s, e), k in kept[:n_warm])
        win = [w for w, k in kept[n_warm:]]
    for device, spans in dev_spans:
        dwin = union(windows([sp for k, sp in spans if k not in warm]))
        ops = op_lines.get(device, [])
        busy = union((s, e) for s, e, a, c, h in ops if not a)
        asy = union((s, e) for s, e, a, c, h in ops if a)
        result["devices"][str(device)] = {
            "window_ns": sum(e - s for s, e in dwin),
            "busy_ns": overlap(busy, dwin),
            "async_ns": overlap(asy, dwin),
            "async_ops": sum(1 for o in ops if o[2]),
        }
    if per_number:
        result["steps"] = len(win)
        result["warmup_steps"] = len(warm)
        result["warmup_ns"] = win[0][0] - origin if win else 0
        if module_lines:
            allops = [o for d in op_lines for o in op_lines[d]]
            w = union(win)
            c16 = union((s, e) for s, e, a, c, h in allops if not a and not c and h)
            c32 = union((s, e) for s, e, a, c, h in allops if not a and not c and not h)
            asy = union((s, e) for s, e, a, c, h in allops if a)
            col = union((s, e) for s, e, a, c, h in allops if c)
            comp = union(c16 + c32)
            result["breakdown"] = {
                "compute_16": overlap(c16, w),
                "compute_32": overlap(c32, w) - overlap(overlap_set(c32, c16), w),
                "async_wait": overlap(asy, w) - overlap(overlap_set(asy, comp), w),
                "collectives": (overlap(col, w) - overlap(overlap_set(col, union(comp + asy)), w)),
            }
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
