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


def count(path):
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

    n = 0
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
            print(json.dumps({"file": path, "slices": n}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
