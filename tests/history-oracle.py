#!/usr/bin/env python3
# history-oracle.py: checks a run history database against the captures
# themselves, with Python's own sqlite3 module and counts over the raw events
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Used by tests/test-history.c. Nothing here comes from Chokepoint's code:
# the database is read with Python's sqlite3, the hash by xxhsum, the
# per-device kernel figures with tests/kernel-busy.py, the per-name kernel
# figures from the raw Kineto events, and the scenario facts from
# `cp-gen --truth`.
#
#   history-oracle.py check DB FILE [--truth T.json] [--label K=V]...
#       the run of FILE holds FILE's figures; exit 1 with the differences
#   history-oracle.py count DB          number of runs (and of child rows)
#   history-oracle.py steps DB PERCENT  each run's mean step time, oldest
#       first, and whether it is a regression: slower than the median of
#       the runs before it by more than PERCENT (the History window's chart)
#   history-oracle.py meta DB           user_version, application_id, journal_mode
#   history-oracle.py set-version DB N  sets user_version (a "newer" database)
#   history-oracle.py make-foreign DB   a database of another program
#   history-oracle.py make-v0 DB        an SQLite database of ours at version 0

import decimal
import gzip
import json
import os
import sqlite3
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from content_hash import content_hash  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
APPLICATION_ID = 0x43504831
problems = []


def expect(what, got, want):
    if got != want:
        problems.append(f"{what}: stored {got!r}, the capture says {want!r}")


def ns(value):
    if isinstance(value, str):
        value = decimal.Decimal(value.strip())
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "rt", encoding="utf-8", errors="replace")


def kineto_kernels(path):
    """Per kernel name: count and total duration in ns, over X events of
    category kernel (all devices), or None when it is not a JSON capture."""
    try:
        with open_text(path) as f:
            doc = json.load(f, parse_float=str)
    except (ValueError, UnicodeDecodeError):
        return None
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    out = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if not isinstance(cat, str) or cat.lower() != "kernel" or "ts" not in e:
            continue
        name = e.get("name")
        if not isinstance(name, str):
            continue
        try:
            dur = max(ns(e.get("dur", 0)), 0)
        except (decimal.InvalidOperation, TypeError):
            continue
        c, t = out.get(name, (0, 0))
        out[name] = (c + 1, t + dur)
    return out


def connect(db):
    # Read only, through a URI, so that the oracle never changes the file.
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def check(db, path, truth_path, labels):
    con = connect(db)
    apath = os.path.abspath(path)
    digest = content_hash(path)
    row = con.execute("SELECT id, path, file_bytes, started_ns, steps, step_mean_ns, step_p50_ns,"
                      " step_p90_ns, step_min_ns, step_max_ns, window_ns FROM runs"
                      " WHERE content_hash = ?", (digest,)).fetchall()
    if len(row) != 1:
        problems.append(f"{path}: {len(row)} runs with its hash {digest}")
        return
    rid, spath, size, started, steps, mean, p50, p90, lo, hi, window = row[0]
    expect("path", spath, apath)
    expect("file_bytes", size, os.path.getsize(path))
    # Step summary: the window lengths' mean is window / steps, and the
    # percentiles lie between min and max, in order.
    if steps > 0:
        expect("step_mean_ns", mean, window // steps)
    if not (lo <= p50 <= p90 <= hi):
        problems.append(f"step percentiles out of order: min {lo} p50 {p50} p90 {p90} max {hi}")

    got_labels = dict(con.execute("SELECT key, value FROM run_labels WHERE run_id = ?", (rid,)).fetchall())
    for kv in labels:
        k, v = kv.split("=", 1)
        expect(f"label {k}", got_labels.get(k), v)

    # Devices against kernel-busy.py.
    out = subprocess.run([sys.executable, os.path.join(HERE, "kernel-busy.py"), path],
                         capture_output=True, text=True, check=True).stdout
    busy = json.loads(out)["devices"]
    stored = {str(d): (k, t, b) for d, k, t, b in con.execute(
        "SELECT device, kernels, kernel_time_ns, kernel_busy_ns FROM run_devices WHERE run_id = ?", (rid,))}
    for dev, figs in busy.items():
        want = (figs["kernels"], figs["kernel_time_ns"], figs["kernel_busy_ns"])
        expect(f"device {dev} (kernels, kernel time, busy)", stored.get(str(dev), (0, 0, 0))[:3], want)

    # Top kernels against the raw events.
    kernels = kineto_kernels(path)
    rows = con.execute("SELECT rank, name, count, total_ns FROM run_kernels WHERE run_id = ? ORDER BY rank",
                       (rid,)).fetchall()
    if kernels is not None:
        expect("number of kernels kept", len(rows), min(len(kernels), 20))
        for rank, name, count, total in rows:
            expect(f"kernel {name[:40]} (count, total)", (count, total), kernels.get(name))
        if rows:
            expect("the top kernel's total", rows[0][3], max(t for c, t in kernels.values()))
        totals = [r[3] for r in rows]
        if totals != sorted(totals, reverse=True):
            problems.append("kernels are not ranked by total time")

    if truth_path:
        with open(truth_path) as f:
            truth = json.load(f)
        expect("started_ns (truth origin_ns)", started, truth["origin_ns"])
        expect("steps (truth)", steps, truth["steps"])
        raised = {r for r, s in con.execute(
            "SELECT rule, severity FROM run_findings WHERE run_id = ? AND severity != 'info'", (rid,))}
        for rule in truth["expect"]:
            if rule not in raised:
                problems.append(f"truth expects {rule} above info; stored {sorted(raised)}")


def main(argv):
    cmd, db = argv[1], argv[2]
    if cmd == "check":
        path, truth, labels = argv[3], None, []
        rest = argv[4:]
        while rest:
            if rest[0] == "--truth":
                truth, rest = rest[1], rest[2:]
            elif rest[0] == "--label":
                labels.append(rest[1])
                rest = rest[2:]
            else:
                raise SystemExit(f"unknown argument {rest[0]}")
        check(db, path, truth, labels)
        if problems:
            for p in problems:
                print(f"{path}: {p}", file=sys.stderr)
            return 1
        print("ok")
        return 0
    if cmd == "count":
        con = connect(db)
        counts = [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("runs", "run_labels", "run_breakdown", "run_devices", "run_findings", "run_kernels")]
        hashes = con.execute("SELECT count(DISTINCT content_hash) FROM runs").fetchone()[0]
        print(json.dumps({"runs": counts[0], "distinct_hashes": hashes, "rows": sum(counts)}))
        return 0
    if cmd == "steps":
        con = connect(db)
        limit = 1 + float(argv[3]) / 100
        out, earlier = [], []
        for rid, path, steps, window in con.execute(
                "SELECT id, path, steps, window_ns FROM runs ORDER BY time_ns, id"):
            # The mean window length, from the stored sum and count.
            mean = window / steps if steps else None
            regression = False
            if mean is not None and earlier:
                regression = mean > statistics.median(earlier) * limit
            if mean is not None:
                earlier.append(mean)
            out.append({"id": rid, "path": path, "step_mean_ns": mean, "regression": regression})
        print(json.dumps(out))
        return 0
    if cmd == "meta":
        con = connect(db)
        print(json.dumps({"user_version": con.execute("PRAGMA user_version").fetchone()[0],
                          "application_id": con.execute("PRAGMA application_id").fetchone()[0],
                          "journal_mode": con.execute("PRAGMA journal_mode").fetchone()[0]}))
        return 0
    if cmd == "set-version":
        con = sqlite3.connect(db)
        con.execute(f"PRAGMA user_version = {int(argv[3])}")
        con.commit()
        con.close()
        return 0
    if cmd == "make-foreign":
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        con.execute("INSERT INTO notes (body) VALUES ('not yours')")
        con.commit()
        con.close()
        return 0
    if cmd == "make-v0":
        con = sqlite3.connect(db)
        con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        con.commit()
        con.close()
        return 0
    raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
