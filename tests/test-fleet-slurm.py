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

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
import slurm_cluster  # noqa: E402
import fleet_oracle  # noqa: E402

SOURCE = os.environ.get("CP_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SUBMIT = os.path.join(SOURCE, "tools", "fleet", "submit.sh")
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


def why_not(chokepoint):
    if os.geteuid() != 0:
        return "needs root to start slurmctld and slurmd (run the suite as root, as CI does)"
    missing = slurm_cluster.missing()
    if missing:
        return f"{', '.join(missing)} not installed (apt-get install slurm-wlm munge)"
    why = pg_cluster.why_not()
    if why is not None:
        return why
    if not fleet_oracle.content_hash_available():
        return "xxhsum (Debian's xxhash) is missing: the oracle names runs with it"
    probe = subprocess.run([chokepoint, "history", "list", "--database", "postgresql://127.0.0.1:1/none"],
                           capture_output=True, text=True)
    if "without PostgreSQL" in probe.stderr:
        return "Chokepoint was built without PostgreSQL"
    return None


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

        until = fleet_oracle.check(chokepoint, captures,
                                   lambda: cluster.psql("SELECT r.id, r.content_hash, r.time_ns, l.value FROM runs r"
                                                        " JOIN run_labels l ON l.run_id = r.id AND l.key = 'node'",
                                                        "fleet"),
                                   [], job_env, ok)
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
