#!/usr/bin/env python3
# test-history-postgres.py: the run history in a real PostgreSQL (TAP)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A private server on loopback (tests/pg_cluster.py). Eight generated
# captures are written by ten processes at once into one new database
# (history add and diagnose --record, so the migration races too); the
# runs must then be exactly the captures' distinct XXH64 sums, computed
# here with xxhsum, with every child row belonging to a run. The same
# captures recorded one after the other into PostgreSQL and into SQLite
# must hold the same rows in all six tables (read with psql and Python's
# sqlite3, not through Chokepoint). Then the refusals: an unreachable
# server, a password that must not be printed, a database of another
# program, and a newer schema, each with exit status 1 and the database left
# as it was; a database never written to lists nothing and stays empty. Skips without the server or
# when Chokepoint was built without PostgreSQL.

import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
from content_hash import available as content_hash_available  # noqa: E402
from content_hash import content_hash  # noqa: E402

n_test = 0
failed = False


def ok(cond, what):
    global n_test, failed
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}", flush=True)
    if not cond:
        failed = True


TABLES = {
    # table: (columns compared, key columns after the hash)
    "runs": ("content_hash, path, file_bytes, format, framework, started_ns, mtime_ns, time_ns, generator,"
             " step_source, steps, window_ns, duration_ns, kernel_time_ns, step_mean_ns, step_p50_ns,"
             " step_p90_ns, step_min_ns, step_max_ns, busy_percent, loading_percent, worst_severity,"
             " warnings, primary_rule"),
    "run_labels": "key, value",
    "run_breakdown": "category, total_ns, mean_ns, percent",
    "run_devices": "device, kind, kernels, kernel_time_ns, kernel_busy_ns, window_busy_ns, window_ns, idle_ns, utilization",
    "run_findings": "position, rule, severity, measured_severity, time_at_stake_ns, time_at_stake_per_step_ns, metric, value",
    "run_kernels": "rank, name, count, total_ns, share",
}


def table_sql(table, cols):
    if table == "runs":
        return f"SELECT {cols} FROM runs ORDER BY content_hash"
    prefixed = ", ".join("c." + c.strip() for c in cols.split(","))
    return (f"SELECT r.content_hash, {prefixed} FROM {table} c JOIN runs r ON r.id = c.run_id"
            f" ORDER BY r.content_hash, {prefixed}")


def norm(v):
    """One value as text both sides agree on: numbers as floats rounded to
    12 significant digits, NULL as None."""
    if v is None or v == "":
        return None
    try:
        f = float(v)
        return f"{f:.12g}"
    except (TypeError, ValueError):
        return str(v)


def main():
    why = pg_cluster.why_not()
    if why is None and not content_hash_available():
        why = "xxhsum (Debian's xxhash) is missing: the test names runs with it"
    if why is not None:
        print(f"1..0 # SKIP {why}")
        return 0
    chokepoint = os.environ["CP_CHOKEPOINT"]
    gen = os.environ["CP_GEN"]
    probe = subprocess.run([chokepoint, "history", "list", "--database", "postgresql://127.0.0.1:1/none"],
                           capture_output=True, text=True)
    if "without PostgreSQL" in probe.stderr:
        print("1..0 # SKIP Chokepoint was built without PostgreSQL (-Dpostgresql=disabled or no libpq)")
        return 0

    print("1..15", flush=True)
    cluster = pg_cluster.Cluster()
    env = dict(os.environ)
    env.pop("CHOKEPOINT_DATABASE", None)
    env.pop("CHOKEPOINT_HISTORY", None)
    try:
        cluster.start()
        captures = []
        for i, scenario in enumerate(("healthy", "input-bound", "sync-stalls", "launch-bound") * 2):
            path = os.path.join(cluster.dir, f"c{i}-{scenario}.json")
            subprocess.run([gen, "--scenario", scenario, "--seed", str(i + 1), "--steps", "3", "-o", path, "-q"],
                           check=True)
            captures.append(path)
        hashes = set()
        for path in captures:
            hashes.add(content_hash(path))

        # Ten writers at once into a database nobody has migrated yet.
        cluster.createdb("race")
        uri = cluster.uri("race")
        procs = []
        for w in range(6):
            order = captures[w % len(captures):] + captures[:w % len(captures)]
            procs.append(subprocess.Popen([chokepoint, "history", "add", "--jobs", "1", "--database", uri,
                                           "--label", f"writer=w{w}"] + order,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        for w in range(4):
            procs.append(subprocess.Popen([chokepoint, "diagnose", "--record", "--database", uri,
                                           "--label", f"writer=d{w}", captures[w]],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        results = [(p.wait(timeout=300), p.communicate()) for p in procs]
        bad = [err for rc, (out, err) in results if rc != 0]
        ok(not bad, f"10 concurrent writers all exit 0 {bad[:1]}")
        stored = [row[0] for row in cluster.psql("SELECT content_hash FROM runs", "race")]
        ok(sorted(stored) == sorted(hashes),
           f"the runs are the {len(hashes)} distinct captures, once each (stored {len(stored)})")
        orphans = cluster.psql("SELECT count(*) FROM run_findings f LEFT JOIN runs r ON r.id = f.run_id"
                               " WHERE r.id IS NULL", "race")[0][0]
        labels = cluster.psql("SELECT count(*), count(DISTINCT run_id) FROM run_labels", "race")[0]
        ok(orphans == "0" and labels == [str(len(hashes))] * 2,
           f"no orphan rows; every run has its one writer label ({labels})")
        version = cluster.psql("SELECT application, version FROM chokepoint_history", "race")
        ok(version == [["CPH1", "2"]], f"the schema is marked and at version 2 ({version})")
        index = cluster.psql("SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_by_path'", "race")
        ok(len(index) == 1 and "(path, file_bytes)" in index[0][0],
           f"migration 2 made the index by path and size ({index})")

        # The same captures, one after the other, into PostgreSQL and SQLite.
        cluster.createdb("seq")
        sqlite_path = os.path.join(cluster.dir, "history.sqlite")
        for db in (cluster.uri("seq"), sqlite_path):
            r = subprocess.run([chokepoint, "history", "add", "--jobs", "1", "--database", db,
                                "--label", "node=n1", "--label", "image=cu12"] + captures,
                               capture_output=True, text=True, env=env)
            ok(r.returncode == 0, f"history add into {db.split(':')[0] if '://' in db else 'SQLite'}")
        lite = sqlite3.connect(sqlite_path)
        differences = []
        rows_seen = 0
        for table, cols in TABLES.items():
            sql = table_sql(table, cols)
            pg_rows = [[norm(v) for v in row] for row in cluster.psql(sql, "seq")]
            lite_rows = [[norm(v) for v in row] for row in lite.execute(sql)]
            rows_seen += len(pg_rows)
            if pg_rows != lite_rows:
                differences.append(f"{table}: {len(pg_rows)} rows in PostgreSQL, {len(lite_rows)} in SQLite")
        lite.close()
        ok(not differences and rows_seen > len(captures) * 4,
           f"PostgreSQL and SQLite hold the same {rows_seen} rows in six tables {differences}")

        env_db = dict(env, CHOKEPOINT_DATABASE=cluster.uri("seq"))
        r = subprocess.run([chokepoint, "history", "trend", "--metric", "gpu.utilization", "--json"],
                           capture_output=True, text=True, env=env_db)
        ok(r.returncode == 0 and len(json.loads(r.stdout)["points"]) == len(captures),
           f"CHOKEPOINT_DATABASE names the history: trend gives {r.stdout.count(chr(34) + 'run' + chr(34))} points")

        # Refusals.
        r = subprocess.run([chokepoint, "history", "list", "--database",
                            f"postgresql://someone:sekrit@127.0.0.1:{pg_cluster.free_port()}/x"],
                           capture_output=True, text=True, env=env)
        ok(r.returncode == 1 and "Cannot connect" in r.stderr and "sekrit" not in r.stderr and "***" in r.stderr,
           f"an unreachable server: exit {r.returncode}, no password shown: {r.stderr.strip()[:120]}")

        cluster.createdb("other")
        cluster.psql("CREATE TABLE invoices (id int); INSERT INTO invoices VALUES (7)", "other")
        r = subprocess.run([chokepoint, "history", "add", "--database", cluster.uri("other"), captures[0]],
                           capture_output=True, text=True, env=env)
        tables = cluster.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", "other")
        ok(r.returncode == 1 and "another program" in r.stderr and tables == [["invoices"]],
           f"a database of another program is refused and left as it is ({tables})")

        cluster.psql("UPDATE chokepoint_history SET version = 99", "seq")
        before = cluster.psql("SELECT count(*) FROM runs", "seq")
        r = subprocess.run([chokepoint, "history", "add", "--database", cluster.uri("seq"), captures[0]],
                           capture_output=True, text=True, env=env)
        after = cluster.psql("SELECT count(*) FROM runs", "seq")
        ok(r.returncode == 1 and "newer" in r.stderr and before == after,
           f"a newer schema is refused and left as it is: {r.stderr.strip()[:100]}")

        cluster.createdb("empty")
        r = subprocess.run([chokepoint, "history", "list", "--database", cluster.uri("empty")],
                           capture_output=True, text=True, env=env)
        tables = cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", "empty")
        ok(r.returncode == 0 and "Run" not in r.stdout and tables == [["0"]],
           f"list on a database never written to lists nothing and creates nothing ({tables})")

        r = subprocess.run([chokepoint, "history", "show", "xxh64:" + sorted(hashes)[0][6:18],
                            "--database", cluster.uri("race")], capture_output=True, text=True, env=env)
        ok(r.returncode == 0 and sorted(hashes)[0] in r.stdout, "show finds a run by a hash prefix (LIKE)")

        r = subprocess.run([chokepoint, "history", "forget", "1", "--database", cluster.uri("race")],
                           capture_output=True, text=True, env=env)
        left = cluster.psql("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_findings"
                            " WHERE run_id = 1)", "race")[0]
        ok(r.returncode == 0 and left == [str(len(hashes) - 1), "0"],
           f"forget removes a run and its rows ({left})")
    finally:
        cluster.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
