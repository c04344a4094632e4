#!/usr/bin/env python3
# test-fleet-slurm.py: the fleet array job on a real one-node Slurm cluster,
# recording into a real PostgreSQL, checked against each capture's
# diagnose --json (TAP)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Started here, in a temporary folder, and stopped at the end whatever
# happens: munged with a fresh key, slurmctld and slurmd from a generated
# slurm.conf (one node, this machine's CPUs, free loopback ports), and a
# private PostgreSQL (tests/pg_cluster.py). tools/fleet/submit.sh submits
# tools/fleet/chokepoint-fleet.sbatch over 44 generated captures (seven
# cp-gen scenarios) and 6 real ones from ../shared/traces when present, as
# an array job of 10 tasks. Then `history fleet --json` must agree with the
# figures computed here from each capture's own `chokepoint diagnose
# --json`: the runs, the prevalence of each finding, the worst runs of each
# metric, the utilisation distribution of every label value (nearest rank)
# and the week-on-week means and regression flags. Only the week each run
# falls in is read from the database (runs.time_ns, with psql); every
# figure is the capture's. Needs root (slurmd runs jobs as any user) and
# Debian's slurm-wlm, munge and postgresql; skips, saying which, otherwise.

import concurrent.futures
import datetime
import glob
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
import slurm_cluster  # noqa: E402

SOURCE = os.environ.get("CP_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SUBMIT = os.path.join(SOURCE, "tools", "fleet", "submit.sh")
WEEK_NS = 7 * 24 * 3600 * 10**9
SCENARIOS = ("healthy", "input-bound", "sync-stalls", "launch-bound", "pageable-transfers",
             "fp32-no-tensor-cores", "comm-bound")
REAL = (  # (path under the shared traces, image label, model label)
    ("AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", "h100", "bert-small"),
    ("AMD-AGI__TraceLens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz", "h100", "vit-nsfw"),
    ("AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "h100", "qwen-0.5b"),
    ("AMD-AGI__TraceLens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz", "mi300", "bert-small"),
    ("AMD-AGI__TraceLens/tests/traces/mi300/Falconsai_nsfw_image_detection__1016002.json.gz", "mi300", "vit-nsfw"),
    ("AMD-AGI__TraceLens/tests/traces/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "mi300", "qwen-0.5b"),
)
n_test = 0
failed = False


def ok(cond, what):
    global n_test, failed
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}", flush=True)
    if not cond:
        failed = True


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-6)


def why_not(chokepoint):
    if os.geteuid() != 0:
        return "needs root to start slurmctld and slurmd (run the suite as root, as CI does)"
    missing = slurm_cluster.missing()
    if missing:
        return f"{', '.join(missing)} not installed (apt-get install slurm-wlm munge)"
    why = pg_cluster.why_not()
    if why is not None:
        return why
    probe = subprocess.run([chokepoint, "history", "list", "--database", "postgresql://127.0.0.1:1/none"],
                           capture_output=True, text=True)
    if "without PostgreSQL" in probe.stderr:
        return "Chokepoint was built without PostgreSQL"
    return None


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


def main():
    chokepoint = os.environ["CP_CHOKEPOINT"]
    gen = os.environ["CP_GEN"]
    why = why_not(chokepoint)
    if why is not None:
        print(f"1..0 # SKIP {why}")
        return 0
    print("1..10", flush=True)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="chokepoint-slurm-")
    os.chmod(tmp, 0o755)
    env = dict(os.environ, SLURM_CONF=os.path.join(tmp, "slurm.conf"))
    env.pop("CHOKEPOINT_HISTORY", None)
    cluster = pg_cluster.Cluster()
    procs = []
    try:
        cluster.start()
        cluster.createdb("fleet")
        procs, state = slurm_cluster.start(tmp, env)
        ok(state == "idle", f"munged, slurmctld and slurmd are up, the node is {state or 'not reported'}")

        # The captures and their labels: 44 generated, 6 real.
        captures = []
        for i in range(44):
            scenario = SCENARIOS[i % len(SCENARIOS)]
            path = os.path.join(tmp, f"gen-{i:02d}-{scenario}.json")
            subprocess.run([gen, "--scenario", scenario, "--seed", str(i + 1), "--steps", "2", "-o", path, "-q"],
                           check=True)
            captures.append((path, {"image": "cu12.4" if i % 3 else "cu12.1", "model": scenario}))
        shared = os.environ.get("CP_SHARED_TRACES", "")
        for rel, image, model in REAL:
            path = os.path.join(shared, rel)
            if shared and os.path.isfile(path):
                captures.append((path, {"image": image, "model": model}))
        listing = os.path.join(tmp, "captures.txt")
        with open(listing, "w") as f:
            f.write("# capture labels\n")
            for path, labels in captures:
                f.write(path + " " + " ".join(f"{k}={v}" for k, v in labels.items()) + "\n")

        job_env = dict(env, CHOKEPOINT=chokepoint, CHOKEPOINT_DATABASE=cluster.uri("fleet"), CP_FLEET_PER_TASK="5")
        t0 = time.monotonic()
        r = subprocess.run([SUBMIT, listing, "--wait", f"--output={tmp}/task-%a.out", f"--chdir={tmp}"],
                           env=job_env, capture_output=True, text=True, timeout=240)
        job_s = time.monotonic() - t0
        outs = "".join(open(p).read() for p in sorted(glob.glob(os.path.join(tmp, "task-*.out"))))
        tasks = len(glob.glob(os.path.join(tmp, "task-*.out")))
        ok(r.returncode == 0 and tasks == (len(captures) + 4) // 5,
           f"the array job of {tasks} tasks over {len(captures)} captures ends well in {job_s:.1f} s"
           + ("" if r.returncode == 0 else f": {r.stderr.strip()} {outs[-800:]}"))

        # The oracle: every capture's own diagnose --json, two at a time.
        def diagnose(item):
            out = subprocess.run([chokepoint, "diagnose", "--json", item[0]], capture_output=True, text=True,
                                 check=True).stdout
            with open(item[0], "rb") as f:
                digest = "sha256:" + hashlib.sha256(f.read()).hexdigest()
            return digest, item, json.loads(out)

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            diags = list(pool.map(diagnose, captures))
        by_hash = {h: (item, d) for h, item, d in diags}
        rows = cluster.psql("SELECT r.id, r.content_hash, r.time_ns, l.value FROM runs r"
                            " JOIN run_labels l ON l.run_id = r.id AND l.key = 'node'", "fleet")
        ok(sorted(h for _, h, _, _ in rows) == sorted(by_hash),
           f"one run per capture, each labelled with its node ({len(rows)} runs, {len(by_hash)} captures)")
        runs = {}
        for rid, h, t, node in rows:
            (path, labels), d = by_hash[h]
            runs[int(rid)] = {"time": int(t), "path": path, "labels": dict(labels, node=node),
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
        r = subprocess.run([chokepoint, "history", "fleet", "--json", "--until", until, "--worst", "5"],
                           env=job_env, capture_output=True, text=True)
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

        r = subprocess.run([chokepoint, "history", "fleet", "--format", "markdown", "--until", until],
                           env=job_env, capture_output=True, text=True)
        ok(r.returncode == 0 and "| Rule | Runs |" in r.stdout and "## Regressions" in r.stdout,
           "--format markdown prints the tables")
        elapsed = time.monotonic() - started
        ok(elapsed < 180, f"the whole test took {elapsed:.0f} s (under 3 minutes)")
    finally:
        slurm_cluster.stop(procs)
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
