#!/usr/bin/env python3
# bench-fleet.py: how fast the fleet array job records, and how fast
# `history fleet` answers over 100,000 runs in PostgreSQL
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tools/fleet/bench-fleet.py BUILD_DIR [--captures N] [--steps S] [--runs R]
#
# As root, with slurm-wlm, munge and postgresql installed (the helpers of
# tests/ start a private one-node cluster and server in a temporary folder).
#
# 1. N cp-gen captures (seven scenarios, S steps each) are diagnosed and
#    recorded by chokepoint-fleet.sbatch as an array job on every CPU, with
#    one task per capture and then one task per core: captures per minute
#    per core, from the job's wall time (sbatch --wait). The same captures diagnosed and recorded
#    one after the other without Slurm give the engine-free rate.
# 2. R runs are made in the database by SQL (copies of the recorded runs,
#    with their children, spread over 64 nodes, 4 images, 8 models and 8
#    weeks, then VACUUM ANALYZE), and `history fleet --json` is timed, best
#    and median of 5.
# Figures go to standard output; docs/performance.md holds a measured set.

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "tests"))
import pg_cluster  # noqa: E402
import slurm_cluster  # noqa: E402

SCENARIOS = ("healthy", "input-bound", "sync-stalls", "launch-bound", "pageable-transfers",
             "fp32-no-tensor-cores", "comm-bound")

# Copies of run `src` (its id taken from a series), with new hashes, times
# and labels, and all its child rows. {n} copies; run ids from {base}.
COPY_SQL = """
SET session_replication_role = replica; -- no foreign-key checks: the ids are made right
BEGIN;
CREATE TEMP TABLE seed AS SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM runs;
CREATE TEMP TABLE copies AS
  SELECT g AS n, s.id AS src
  FROM generate_series(1::bigint, {n}) AS g JOIN seed s ON s.k = g % (SELECT count(*) FROM seed);
INSERT INTO runs (id, content_hash, path, file_bytes, format, framework, started_ns, mtime_ns, recorded_ns,
                  time_ns, generator, step_source, steps, window_ns, duration_ns, kernel_time_ns, step_mean_ns,
                  step_p50_ns, step_p90_ns, step_min_ns, step_max_ns, busy_percent, loading_percent,
                  worst_severity, warnings, primary_rule)
  SELECT {base} + c.n, 'sha256:bench' || c.n, r.path || '#' || c.n, r.file_bytes, r.format, r.framework,
         r.started_ns, r.mtime_ns, r.recorded_ns,
         {now} - (c.n % 56) * 86400000000000 - (c.n % 997) * 1000000000,
         r.generator, r.step_source, r.steps, r.window_ns, r.duration_ns, r.kernel_time_ns,
         (r.step_mean_ns * (0.9 + (c.n % 21) / 100.0))::bigint, r.step_p50_ns, r.step_p90_ns, r.step_min_ns,
         r.step_max_ns, r.busy_percent, r.loading_percent, r.worst_severity, r.warnings, r.primary_rule
  FROM copies c JOIN runs r ON r.id = c.src;
INSERT INTO run_labels (run_id, key, value)
  SELECT {base} + n, 'node', 'node' || lpad((n % 64)::text, 2, '0') FROM copies
  UNION ALL SELECT {base} + n, 'image', 'cu12.' || (n % 4) FROM copies
  UNION ALL SELECT {base} + n, 'model', 'model-' || (n % 8) FROM copies;
INSERT INTO run_breakdown SELECT {base} + c.n, b.category, b.total_ns, b.mean_ns, b.percent
  FROM copies c JOIN run_breakdown b ON b.run_id = c.src;
INSERT INTO run_devices SELECT {base} + c.n, d.device, d.kind, d.kernels, d.kernel_time_ns, d.kernel_busy_ns,
         d.window_busy_ns, d.window_ns, d.idle_ns, d.utilization * (0.8 + (c.n % 41) / 200.0)
  FROM copies c JOIN run_devices d ON d.run_id = c.src;
INSERT INTO run_findings SELECT {base} + c.n, f.position, f.rule, f.severity, f.measured_severity,
         f.time_at_stake_ns, f.time_at_stake_per_step_ns, f.metric, f.value
  FROM copies c JOIN run_findings f ON f.run_id = c.src;
INSERT INTO run_kernels SELECT {base} + c.n, k.rank, k.name, k.count, k.total_ns, k.share
  FROM copies c JOIN run_kernels k ON k.run_id = c.src;
COMMIT;
SET session_replication_role = origin;
"""


def main():
    ap = argparse.ArgumentParser(description="Benchmarks the fleet array job and history fleet")
    ap.add_argument("build")
    ap.add_argument("--captures", type=int, default=28)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--runs", type=int, default=100000)
    ap.add_argument("--no-job", action="store_true", help="only the 100,000 runs (recorded without Slurm)")
    args = ap.parse_args()
    chokepoint = os.path.abspath(os.path.join(args.build, "src", "chokepoint"))
    gen = os.path.abspath(os.path.join(args.build, "tools", "cp-gen"))
    why = pg_cluster.why_not() or (", ".join(slurm_cluster.missing()) or None) or \
        (None if os.geteuid() == 0 else "needs root")
    if why is not None:
        print(f"bench-fleet: cannot run: {why}", file=sys.stderr)
        return 2

    tmp = tempfile.mkdtemp(prefix="chokepoint-bench-fleet-")
    os.chmod(tmp, 0o755)
    env = dict(os.environ, SLURM_CONF=os.path.join(tmp, "slurm.conf"))
    cluster = pg_cluster.Cluster()
    procs = []
    cores = os.cpu_count() or 1
    try:
        cluster.start()
        cluster.createdb("plain")
        procs, state = slurm_cluster.start(tmp, env)
        if state != "idle":
            print(f"bench-fleet: the Slurm node is {state or 'not up'}", file=sys.stderr)
            return 1
        listing = os.path.join(tmp, "captures.txt")
        paths = []
        with open(listing, "w") as f:
            for i in range(args.captures):
                scenario = SCENARIOS[i % len(SCENARIOS)]
                path = os.path.join(tmp, f"c{i:03d}-{scenario}.json")
                subprocess.run([gen, "--scenario", scenario, "--seed", str(i + 1), "--steps", str(args.steps),
                                "-o", path, "-q"], check=True)
                paths.append(path)
                f.write(f"{path} model={scenario}\n")
        mb = sum(os.path.getsize(p) for p in paths) / len(paths) / 1e6

        t0 = time.monotonic()
        for p in paths:
            subprocess.run([chokepoint, "diagnose", "--record", "--database", cluster.uri("plain"), p],
                           check=True, capture_output=True)
        plain_s = time.monotonic() - t0

        print(f"captures: {len(paths)} of {mb:.1f} MB ({args.steps} steps), {cores} cores")
        print(f"one after the other, no Slurm: {plain_s:.1f} s, "
              f"{len(paths) / plain_s * 60:.0f} captures/min on one core")
        # One task per capture, then one task per core; each into a new
        # database, so that nothing is skipped as known.
        db = "plain"
        for per in () if args.no_job else (1, (len(paths) + cores - 1) // cores):
            db = f"fleet{per}"
            cluster.createdb(db)
            job_env = dict(env, CHOKEPOINT=chokepoint, CHOKEPOINT_DATABASE=cluster.uri(db),
                           CP_FLEET_PER_TASK=str(per))
            t0 = time.monotonic()
            subprocess.run([os.path.join(HERE, "submit.sh"), listing, "--wait", f"--output={tmp}/t{per}-%a.out",
                            f"--chdir={tmp}"], env=job_env, check=True, capture_output=True)
            job_s = time.monotonic() - t0
            tasks = (len(paths) + per - 1) // per
            print(f"array job, {tasks} tasks of {per} on {cores} cores: {job_s:.1f} s, "
                  f"{len(paths) / job_s * 60:.0f} captures/min, {len(paths) / job_s * 60 / cores:.0f} per core")

        now = time.time_ns()
        t0 = time.monotonic()
        cluster.psql(COPY_SQL.format(n=args.runs - len(paths), base=10**6, now=now), db, timeout=900)
        cluster.psql("VACUUM ANALYZE", db, timeout=900)  # as autovacuum would
        fill_s = time.monotonic() - t0
        count = cluster.psql("SELECT count(*), (SELECT count(*) FROM run_labels),"
                             " (SELECT count(*) FROM run_findings) FROM runs", db)[0]
        print(f"database: {count[0]} runs, {count[1]} labels, {count[2]} findings (made in {fill_s:.1f} s)")
        times = []
        for _ in range(5):
            t0 = time.monotonic()
            r = subprocess.run([chokepoint, "history", "fleet", "--json", "--database", cluster.uri(db)],
                               env=env, capture_output=True,
                               text=True, check=True)
            times.append(time.monotonic() - t0)
        print(f"history fleet --json over {count[0]} runs: best {min(times):.3f} s, "
              f"median {statistics.median(times):.3f} s ({len(r.stdout)} bytes)")
    finally:
        slurm_cluster.stop(procs)
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
