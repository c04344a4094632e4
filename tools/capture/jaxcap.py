# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Plumbing shared by the JAX capture programs in this folder (JAX 0.4 or later).

Each program warms up (compiles) outside the trace, then runs its loop under
jax.profiler.trace(--out), which writes a TensorBoard profile run:
    <out>/plugins/profile/<run>/<host>.xplane.pb
Every step is wrapped in jax.profiler.StepTraceAnnotation("train", step_num=i)
so XProf and Chokepoint can find the steps.  --gz PATH also writes a gzipped
copy of the .xplane.pb (what tests/data/captures keeps).

These programs need JAX, which Debian does not package; they are not run by
the project's tests or CI.
"""

import argparse
import glob
import gzip
import json
import os
import platform
import shutil
import sys
import time

import jax

__all__ = ["parse_args", "Trace", "describe_environment"]


def parse_args(description, steps=10, extra=None):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", required=True,
                        help="TensorBoard log folder the profile run is written to")
    parser.add_argument("--steps", type=int, default=steps,
                        help="traced steps (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="untraced steps first, which compile (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gz", default=None,
                        help="also write the run's .xplane.pb gzipped to this path")
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    if args.steps < 1 or args.warmup < 0:
        parser.error("--steps must be >= 1 and --warmup >= 0")
    return args


def describe_environment():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    device = jax.devices()[0]
    return {
        "jax": jax.__version__,
        "python": platform.python_version(),
        "backend": jax.default_backend(),
        "device": getattr(device, "device_kind", str(device)),
        "device_count": str(jax.device_count()),
        "cpu": cpu,
        "os": platform.platform(),
    }


def _gzip_file(src, dst):
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    tmp = dst + ".part"
    with open(src, "rb") as fin, open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                           compresslevel=9) as fout:
            shutil.copyfileobj(fin, fout)
    os.replace(tmp, dst)


class Trace:
    """with Trace(args, "healthy", expect=[]) as tr: ... with tr.step(i): ..."""

    def __init__(self, args, scenario, expect, allow=()):
        self.args = args
        self.scenario = scenario
        self.expect = list(expect)
        self.allow = list(allow)
        self.xplane = None
        self.step_times = []
        self._ctx = None
        self._started = 0.0

    def __enter__(self):
        os.makedirs(self.args.out, exist_ok=True)
        self._started = time.time()
        self._ctx = jax.profiler.trace(self.args.out)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        result = self._ctx.__exit__(*exc)
        if exc[0] is None:
            self._collect()
        return result

    def step(self, i):
        return jax.profiler.StepTraceAnnotation("train", step_num=i)

    def _collect(self):
        pattern = os.path.join(self.args.out, "plugins", "profile", "*", "*.xplane.pb")
        runs = [p for p in glob.glob(pattern) if os.path.getmtime(p) >= self._started - 1]
        if not runs:
            sys.exit("%s: jax.profiler wrote no .xplane.pb under %s"
                     % (sys.argv[0], self.args.out))
        self.xplane = max(runs, key=os.path.getmtime)
        # What the run holds, beside the profile (TensorBoard ignores it).
        meta = os.path.join(os.path.dirname(self.xplane), "chokepoint_capture.json")
        with open(meta, "w", encoding="utf-8") as f:
            json.dump({"scenario": self.scenario, "expect": self.expect,
                       "allow": self.allow, "script": os.path.basename(sys.argv[0]),
                       "argv": sys.argv[1:], "env": describe_environment()},
                      f, indent=1, sort_keys=True)
        if self.args.gz:
            _gzip_file(self.xplane, self.args.gz)

    def report(self, **figures):
        line = {
            "capture": self.xplane,
            "scenario": self.scenario,
            "expect": self.expect,
            "bytes": os.path.getsize(self.xplane),
            "steps": self.args.steps,
            "env": describe_environment(),
        }
        if self.step_times:
            line["mean_step_ms"] = round(1000.0 * sum(self.step_times) / len(self.step_times), 3)
        if self.args.gz:
            line["gz"] = self.args.gz
            line["gz_bytes"] = os.path.getsize(self.args.gz)
        for key, value in figures.items():
            line[key] = round(value, 4) if isinstance(value, float) else value
        print(json.dumps(line, sort_keys=True), flush=True)
