#!/usr/bin/env python3
# test-history-fleet.py: `history fleet` on the SQLite engine against each
# capture's own diagnose --json (TAP)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# 21 cp-gen captures (seven scenarios, three seeds each) are recorded with
# node, image and model labels into a new SQLite history; tests/fleet_oracle.py
# then checks every figure of `history fleet --json` against the captures'
# diagnose --json, reading only ids, hashes and times with Python's sqlite3.
# test-fleet-slurm.py does the same on PostgreSQL through Slurm. Then the
# filters (--label, --since), --by, the Markdown and the refusals.

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_oracle  # noqa: E402

SCENARIOS = ("healthy", "input-bound", "sync-stalls", "launch-bound", "pageable-transfers",
             "fp32-no-tensor-cores", "comm-bound")
n_test = 0
failed = False


def ok(cond, what):
    global n_test, failed
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}", flush=True)
    if not cond:
        failed = True


def main():
    chokepoint = os.environ["CP_CHOKEPOINT"]
    gen = os.environ["CP_GEN"]
    if not fleet_oracle.content_hash_available():
        print("1..0 # SKIP xxhsum (Debian's xxhash) is missing: the oracle names runs with it", flush=True)
        return
    print("1..12", flush=True)
    tmp = tempfile.mkdtemp(prefix="chokepoint-fleet-")
    env = dict(os.environ)
    env.pop("CHOKEPOINT_DATABASE", None)
    env.pop("CHOKEPOINT_HISTORY", None)
    db = os.path.join(tmp, "history.sqlite")
    try:
        captures = []
        for i in range(21):
            scenario = SCENARIOS[i % len(SCENARIOS)]
            path = os.path.join(tmp, f"c{i:02d}-{scenario}.json")
            subprocess.run([gen, "--scenario", scenario, "--seed", str(i + 1), "--steps", "2", "-o", path, "-q"],
                           check=True)
            labels = {"node": f"n{i % 3}", "image": "cu12.4" if i % 2 else "cu12.1", "model": scenario}
            captures.append((path, labels))
            r = subprocess.run([chokepoint, "history", "add", "--database", db] +
                               [a for k, v in labels.items() for a in ("--label", f"{k}={v}")] + [path],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                print(f"# {r.stderr}")
                return 1

        def rows():
            with sqlite3.connect(db) as con:
                return list(con.execute("SELECT r.id, r.content_hash, r.time_ns, l.value FROM runs r"
                                        " JOIN run_labels l ON l.run_id = r.id AND l.key = 'node'"))

        until = fleet_oracle.check(chokepoint, [(p, {k: v for k, v in ls.items() if k != "node"})
                                                for p, ls in captures],
                                   rows, ["--database", db], env, ok)

        def fleet(*args):
            r = subprocess.run([chokepoint, "history", "fleet", "--database", db] + list(args),
                               capture_output=True, text=True, env=env)
            return r.returncode, r.stdout, r.stderr

        # Filters: the runs of node n1 only.
        rc, out, _ = fleet("--json", "--label", "node=n1", "--by", "model", "--until", until)
        d = json.loads(out) if rc == 0 else {}
        n1 = [p for p, ls in captures if ls["node"] == "n1"]
        ok(rc == 0 and d["runs"] == len(n1) and d["keys"] == ["model"] and
           all(u["key"] in (None, "model") for u in d["utilization"]) and
           sum(u["runs"] for u in d["utilization"] if u["key"] == "model") ==
           next(u["runs"] for u in d["utilization"] if u["key"] is None),
           f"--label node=n1 --by model: {d.get('runs')} runs, groups of model only, adding up")
        rc, out, _ = fleet("--json", "--since", "2100-01-01")
        d = json.loads(out) if rc == 0 else {}
        ok(rc == 0 and d["runs"] == 0 and d["findings"] == [] and d["utilization"] == [] and d["changes"] == [],
           "--since in the future: no runs, empty sections")
        rc, out, _ = fleet("--format", "markdown", "--until", until)
        ok(rc == 0 and out.startswith("# Fleet summary") and "| Rule | Runs | Share |" in out and
           "## GPU utilisation by label" in out, "--format markdown")
        rc, out, _ = fleet()
        ok(rc == 0 and out.startswith("Fleet: 21 runs") and "Worst runs:" in out, "text output")
        for args, what in ((["--format", "xml"], "--format xml"), (["--worst", "-1"], "--worst -1"),
                           (["--by", "no space"], "a bad --by key"), (["--until", "soon"], "a bad --until"),
                           (["extra"], "an argument")):
            rc, out, err = fleet(*args)
            if rc != 2 or out != "" or "chokepoint history fleet:" not in err:
                ok(False, f"{what}: exit {rc}, {err.strip()}")
                break
        else:
            ok(True, "bad arguments exit 2 with a message")
        r = subprocess.run([chokepoint, "history", "fleet", "--database", os.path.join(tmp, "none.sqlite")],
                           capture_output=True, text=True, env=env)
        ok(r.returncode == 1 and "No history" in r.stderr and not os.path.exists(os.path.join(tmp, "none.sqlite")),
           "a history that does not exist: exit 1, nothing made")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
