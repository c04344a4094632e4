#!/usr/bin/env python3
# test-oracle-cache.py: tests/oracle-cache/sitecustomize.py replays an
# oracle's output for the same inputs, runs it again when an input
# changes, and never stores a failed run.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
n = 0


def ok(cond, what):
    global n
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        # An oracle that says how often it ran, so a replay shows.
        oracle_dir = os.path.join(tmp, "oracles")
        os.mkdir(oracle_dir)
        script = os.path.join(oracle_dir, "runs-count.py")
        runs = os.path.join(tmp, "runs")
        with open(script, "w") as f:
            f.write("import sys\n"
                    "open(%r, 'a').write('x')\n"
                    "if sys.argv[2] == 'fail':\n"
                    "    print('partial'); sys.exit(3)\n"
                    "print('counted', open(sys.argv[1]).read().strip())\n" % runs)
        data = os.path.join(tmp, "capture.json")
        with open(data, "w") as f:
            f.write("one\n")
        env = dict(os.environ, CP_ORACLE_CACHE=cache,
                   PYTHONPATH=os.path.join(HERE, "oracle-cache"))

        def run(*args, cached=True):
            e = env if cached else {k: v for k, v in env.items() if k != "CP_ORACLE_CACHE"}
            return subprocess.run([sys.executable, script, *args], env=e, capture_output=True, text=True)

        def count():
            return len(open(runs).read()) if os.path.exists(runs) else 0

        a = run(data, "ok")
        b = run(data, "ok")
        ok(a.returncode == 0 and a.stdout == "counted one\n", "the first run prints the oracle's output")
        ok(b.returncode == 0 and b.stdout == a.stdout, "the second run prints the same")
        ok(count() == 1, "the second run is a replay: the oracle ran once")

        time.sleep(0.01)
        with open(data, "w") as f:
            f.write("two\n")
        c = run(data, "ok")
        ok(c.stdout == "counted two\n" and count() == 2, "a changed input runs the oracle again")

        d = run(data, "fail")
        e = run(data, "fail")
        ok(d.returncode == 3 and e.returncode == 3 and count() == 4, "a failed run is never stored")

        f_ = run(data, "ok", cached=False)
        ok(f_.stdout == "counted two\n" and count() == 5, "without CP_ORACLE_CACHE nothing is replayed")
    print("1..%d" % n)


if __name__ == "__main__":
    main()
