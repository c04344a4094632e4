# fleet_oracle.py: `history fleet --json` against each capture's own
# `chokepoint diagnose --json`
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Used by test-fleet-slurm.py (PostgreSQL) and test-history-fleet.py
# (SQLite). The figures come from each capture's diagnose --json and the
# labels from the list the captures were recorded with; only the run id,
# the content hash, the run's time_ns (which week it falls in) and the node
# label the array job gave are read from the database, by the caller, with
# psql or Python's sqlite3. check() runs `history fleet --json` at the end
# of week that puts the most runs in both weeks and checks the runs, the
# prevalence of each finding, the worst five runs of each metric, every
# label value's utilisation distribution (nearest rank) and the
# week-on-week means and regression flags. It returns --until's value.

import concurrent.futures
import datetime
import json
import math
import os
import subprocess

from content_hash import available as content_hash_available  # noqa: F401
from content_hash import content_hash

WEEK_NS = 7 * 24 * 3600 * 10**9


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-6)


def nearest_rank(sorted_values, p):
    n = len(sorted_values)
    i = min(max(math.ceil(p * n), 1), n)
    return sorted_values[i - 1]


def figures(diag):
    """The fleet's metrics of one run, from its diagnose --json."""
    m = diag["metrics"]
    utils = [d["utilization"] for d in (m.get("devices") or []) if d.get("utilization") is not None]
    lengths = sorted(s["end_ns"] - s["start_ns"] for s in diag.get("steps") or [])
    loading = diag["verdict"]["figures"].get("loading_percent")
    return {
        "step_time.mean": float(m["step_time"]["mean_ns"]),
        "step_time.p90": float(nearest_rank(lengths, 0.9)) if lengths else 0.0,
        "gpu.utilization": 100.0 * min(utils) if utils else None,
        "input.share": loading if loading is not None and math.isfinite(loading) else None,
    }



def check(chokepoint, captures, read_rows, db_args, env, ok):
    """captures: [(path, {label: value})]; read_rows(): [(id, hash,
    time_ns, node or None)] from the database; db_args: --database ...
    or []; ok(cond, what): the TAP line."""
    # The oracle: every capture's own diagnose --json, two at a time.
    def diagnose(item):
        out = subprocess.run([chokepoint, "diagnose", "--json", item[0]], capture_output=True, text=True,
                             check=True).stdout
        digest = content_hash(item[0])
        return digest, item, json.loads(out)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        diags = list(pool.map(diagnose, captures))
    by_hash = {h: (item, d) for h, item, d in diags}
    rows = read_rows()
    ok(sorted(h for _, h, _, _ in rows) == sorted(by_hash),
       f"one run per capture, each labelled with its node ({len(rows)} runs, {len(by_hash)} captures)")
    runs = {}
    for rid, h, t, node in rows:
        (path, labels), d = by_hash[h]
        runs[int(rid)] = {"time": int(t), "path": path, "labels": dict(labels, **({"node": node} if node else {})),
                          "rules": [(f["rule"], f["severity"], f["time_at_stake_ns"]) for f in d["findings"]],
                          "figures": figures(d)}

    # The week compared: the end that puts the most runs in both weeks.
    times = sorted(r["time"] for r in runs.values())
    best, until_s = -1, None
    for t in times:
        u = (t // 10**9 + 1) * 10**9
        after = sum(1 for x in times if u - WEEK_NS <= x < u)
        before = sum(1 for x in times if u - 2 * WEEK_NS <= x < u - WEEK_NS)
        if min(after, before) > best:
            best, until_s = min(after, before), u // 10**9
    until = datetime.datetime.fromtimestamp(until_s, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    r = subprocess.run([chokepoint, "history", "fleet", "--json", "--until", until, "--worst", "5"] + db_args,
                       env=env, capture_output=True, text=True)
    fleet = json.loads(r.stdout) if r.returncode == 0 else {}
    ok(r.returncode == 0 and fleet.get("runs") == len(runs), f"history fleet --json: {fleet.get('runs')} runs")

    # Prevalence.
    want = {}
    for run in runs.values():
        for rule, severity, stake in run["rules"]:
            w = want.setdefault(rule, [0, 0, 0])
            w[0] += 1
            w[1] += severity != "info"
            w[2] += stake
    got = {f["rule"]: [f["runs"], f["above_info"], f["time_at_stake_ns"]] for f in fleet.get("findings", [])}
    ok(got == want and all(close(f["percent"], 100.0 * f["runs"] / len(runs)) for f in fleet.get("findings", [])),
       f"prevalence of {len(want)} rules matches the captures' findings"
       + ("" if got == want else f": {got} vs {want}"))

    # Worst runs per metric.
    bad = []
    for w in fleet.get("worst", []):
        metric = w["metric"]
        values = [(r["figures"][metric], rid) for rid, r in runs.items() if r["figures"][metric] is not None]
        values.sort(key=lambda x: (x[0] if w["worse"] == "lower" else -x[0], x[1]))
        expect = values[:5]
        gotv = [(x["value"], x["id"]) for x in w["runs"]]
        if len(gotv) != len(expect) or not all(close(a[0], b[0]) for a, b in zip(gotv, expect)) or \
                any(os.path.realpath(runs[x["id"]]["path"]) != os.path.realpath(x["path"]) for x in w["runs"]):
            bad.append(f"{metric}: {gotv} vs {expect}")
    ok(len(fleet.get("worst", [])) == 4 and not bad, f"the worst 5 runs of 4 metrics {bad[:2]}")

    # Utilisation distribution per label value.
    groups = {(None, None): []}
    for run in runs.values():
        u = run["figures"]["gpu.utilization"]
        if u is None:
            continue
        groups[(None, None)].append(u)
        for key in ("node", "image", "model"):
            if key in run["labels"]:
                groups.setdefault((key, run["labels"][key]), []).append(u)
    bad = []
    got = {(u["key"], u["value"]): u for u in fleet.get("utilization", [])}
    for g, values in groups.items():
        values.sort()
        u = got.get(g)
        expect = {"runs": len(values), "mean": sum(values) / len(values), "min": values[0], "max": values[-1],
                  "p10": nearest_rank(values, 0.1), "p50": nearest_rank(values, 0.5),
                  "p90": nearest_rank(values, 0.9)}
        if u is None or u["runs"] != expect["runs"] or \
                not all(close(u[k], expect[k]) for k in ("mean", "min", "max", "p10", "p50", "p90")):
            bad.append(f"{g}: {u} vs {expect}")
    ok(not bad and len(got) == len(groups),
       f"utilisation of {len(groups)} groups (all, node, image, model values) {bad[:1]}")

    # Week on week.
    expect_changes = {}
    for key in (None, "node", "image", "model"):
        weeks = ({}, {})
        for run in runs.values():
            t = run["time"]
            w = 0 if until_s * 10**9 - 2 * WEEK_NS <= t < until_s * 10**9 - WEEK_NS else \
                1 if until_s * 10**9 - WEEK_NS <= t < until_s * 10**9 else None
            if w is None or (key is not None and key not in run["labels"]):
                continue
            g = run["labels"][key] if key else None
            for metric, v in run["figures"].items():
                if v is not None:
                    weeks[w].setdefault((g, metric), []).append(v)
        for (g, metric), after in weeks[1].items():
            before = weeks[0].get((g, metric))
            if not before:
                continue
            b, a = sum(before) / len(before), sum(after) / len(after)
            change = 100 * (a - b) / abs(b) if b != 0 else None
            worse = -1 if metric == "gpu.utilization" else 1
            expect_changes[(key, g, metric)] = (len(before), len(after), b, a,
                                                change is not None and worse * change > 5)
    got_changes = {(c["key"], c["value"], c["metric"]): c for c in fleet.get("changes", [])}
    bad = [k for k, e in expect_changes.items()
           if k not in got_changes or (got_changes[k]["runs_before"], got_changes[k]["runs_after"]) != e[:2]
           or not close(got_changes[k]["before"], e[2]) or not close(got_changes[k]["after"], e[3])
           or got_changes[k]["regression"] != e[4]]
    n_reg = sum(1 for e in expect_changes.values() if e[4])
    ok(expect_changes and not bad and len(got_changes) == len(expect_changes),
       f"{len(expect_changes)} week-on-week changes until {until}, {n_reg} regressions {bad[:3]}")
    return until
