#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Independent count of the duration slices in Chrome trace JSON files.

Used by test-chrome-shared to check the reader. It uses only Python's json
and gzip modules. For each file named on the command line it prints one JSON
line: {"file": ..., "slices": N} or {"file": ..., "not_a_trace": true}.

What counts as a slice (the same definition as src/formats/cp-chrome-reader.c):
every event with a numeric timestamp ("ts" a number, or a string holding a
finite number) whose phase is
  X            complete event (dur may be missing: a zero-length slice)
  B            begin (matched with its E, or closed at the end of the trace)
  b, S         async begin, when it has an "id" or an "id2" with local/global
  N            object creation (its lifetime), when it has an id
  T, p         when it also has a numeric "dur"
  P            CPU profile samples: each thread's samples, in time order,
               become a flame chart, one slice per run of consecutive
               samples whose stacks share a frame at that depth and every
               frame above it (see samples() below)
Instants (i, I, R, n, O), counters, flows and metadata are not slices; an
unmatched E adds nothing. A Google Cloud Trace document ({"traceId", "spans"})
has one slice per span with a start and an end time.
"""

import gzip
import json
import math
import sys


def number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            v = float(value)
        except ValueError:
            return None
        return v if math.isfinite(v) else None
    return None


def has_id(event):
    i = event.get("id")
    if isinstance(i, (str, int, float)) and not isinstance(i, bool):
        return True
    id2 = event.get("id2")
    if isinstance(id2, dict):
        for k in ("local", "global"):
            if isinstance(id2.get(k), (str, int, float)) and not isinstance(id2.get(k), bool):
                return True
    return False


def sample_stacks(doc, events):
    """Every CPU profile sample as (pid, tid, ts in us, stack), the stack a
    tuple of frame identities, outermost first. Legacy samples name a frame
    of the top-level stackFrames with "sf" (its chain of parents is the
    stack) or are a frame of their own; DevTools profiles are a "Profile"
    event (args.data.startTime) and "ProfileChunk" events with the same id
    and pid, holding call-tree nodes and samples with the us between them.
    The root node "(root)" is left out; a sample whose innermost frame is
    "(idle)" has an empty stack."""
    frames = doc.get("stackFrames", {}) if isinstance(doc, dict) else {}
    if not isinstance(frames, dict):
        frames = {}
    out = []
    nodes = {}
    clock = {}

    def legacy(sf):
        chain = []
        k = str(sf)
        while k in frames and len(chain) < 256:
            f = frames[k]
            chain.append(("sf", k, f.get("name", "(unknown)")))
            if "parent" not in f:
                break
            k = str(f["parent"])
        return chain

    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "P" or number(e.get("ts")) is None:
            continue
        name = e.get("name")
        pid, tid = e.get("pid"), e.get("tid", e.get("pid"))
        if name in ("Profile", "ProfileChunk"):
            data = (e.get("args") or {}).get("data")
            if not isinstance(data, dict):
                continue
            key = (str(e.get("id")), str(pid))
            if name == "Profile":
                if isinstance(data.get("startTime"), (int, float)):
                    clock[key] = data["startTime"]
                continue
            cpu = data.get("cpuProfile") or {}
            tree = nodes.setdefault(key, {})
            for n in cpu.get("nodes") or []:
                fn = (n.get("callFrame") or {}).get("functionName") or "(anonymous)"
                tree[n["id"]] = (fn, n.get("parent"))
            t = clock.get(key, number(e["ts"]))
            deltas = data.get("timeDeltas") or []
            for i, node in enumerate(cpu.get("samples") or []):
                d = deltas[i] if i < len(deltas) else 0
                if d > 0:
                    t += d
                chain = []
                k = node
                while k in tree and len(chain) < 256:
                    chain.append((key, k, tree[k][0]))
                    k = tree[k][1]
                out.append((pid, tid, t, chain))
            clock[key] = t
        else:
            chain = legacy(e["sf"]) if "sf" in e else []
            if not chain:
                chain = [("name", name, name)]
            out.append((pid, tid, number(e["ts"]), chain))
    result = []
    for pid, tid, ts, chain in out:
        stack = list(reversed(chain))
        if stack and stack[0][2] == "(root)":
            stack = stack[1:]
        if stack and stack[-1][2] == "(idle)":
            stack = []
        result.append((pid, tid, ts, tuple(s[:2] for s in stack)))
    return result


def samples(doc, events):
    """(slices, samples with a stack, CPU time in us) of the CPU profile
    samples: each sample lasts until the next one on its thread (the last
    one as long as the one before it)."""
    by_thread = {}
    for pid, tid, ts, stack in sample_stacks(doc, events):
        by_thread.setdefault((str(pid), str(tid)), []).append((ts, stack))
    slices = busy = cpu = 0
    for runs in by_thread.values():
        runs.sort(key=lambda r: r[0])
        prev = ()
        for i, (ts, stack) in enumerate(runs):
            same = 0
            while same < min(len(prev), len(stack)) and prev[same] == stack[same]:
                same += 1
            slices += len(stack) - same
            prev = stack
            if stack:
                busy += 1
                if i + 1 < len(runs):
                    cpu += runs[i + 1][0] - ts
                elif i > 0:
                    cpu += ts - runs[i - 1][0]
    return slices, busy, cpu


def count(path):
    count.cpu_samples, count.cpu_time_ns = 0, 0
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8", errors="replace"))
    if isinstance(doc, dict):
        if "traceEvents" not in doc:
            # Google Cloud Trace JSON: one slice per span with both times.
            spans = doc.get("spans")
            if "traceId" in doc and isinstance(spans, list):
                return sum(1 for s in spans if isinstance(s, dict)
                           and isinstance(s.get("startTime"), str)
                           and isinstance(s.get("endTime"), str))
            return None
        events = doc["traceEvents"]
        if not isinstance(events, list):
            return None
    elif isinstance(doc, list):
        events = doc
        if events and not any(isinstance(e, dict) for e in events):
            return None
    else:
        return None

    n, count.cpu_samples, cpu = samples(doc, events)
    count.cpu_time_ns = round(cpu * 1000)
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if number(e.get("ts")) is None:
            continue
        if ph in ("X", "B"):
            n += 1
        elif ph in ("b", "S", "N"):
            if has_id(e):
                n += 1
        elif ph in ("T", "p"):
            if number(e.get("dur")) is not None:
                n += 1
    return n


def main():
    for path in sys.argv[1:]:
        try:
            n = count(path)
        except (ValueError, OSError, EOFError) as e:
            print(json.dumps({"file": path, "error": str(e)}))
            continue
        if n is None:
            print(json.dumps({"file": path, "not_a_trace": True}))
        else:
            print(json.dumps({"file": path, "slices": n, "cpu_samples": count.cpu_samples,
                              "cpu_time_ns": count.cpu_time_ns}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
