# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Plumbing shared by the PyTorch capture programs in this folder.

Every program runs a short loop with one deliberate bottleneck under
torch.profiler with a wait/warmup/active schedule.  When the active window
closes, on_trace_ready exports the profiler's own Chrome trace (Kineto JSON
when the PyTorch build has Kineto) and gzips it to --out.

Works with PyTorch 1.13 and 2.x.  Only the standard library and torch are
used, so the programs run on a machine where nothing can be downloaded.
"""

import argparse
import gzip
import json
import os
import platform
import shutil
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

__all__ = [
    "parse_args",
    "Capture",
    "record_function",
    "describe_environment",
    "cuda_sync",
    "autocast",
    "amp_dtype",
]


def _default_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


def parse_args(description, steps=4, cuda_wait=1, extra=None):
    """Parses the options every capture program takes.

    extra, when given, is called with the parser to add program-specific
    options.  --steps is the number of profiled (active) steps; --wait and
    --warmup steps run before them and are not recorded.  cuda_wait is the
    default --wait on a GPU: loops that never synchronise let the host run
    ahead of the GPU until the launch queue fills, and recording should start
    in that steady state, not in the first few steps.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--device", choices=("cpu", "cuda"),
                        default=_default_device(),
                        help="where the model runs (default: cuda when available)")
    parser.add_argument("--out", required=True,
                        help="capture to write (.json.gz is gzipped, .json is plain)")
    parser.add_argument("--steps", type=int, default=steps,
                        help="profiled steps (default: %(default)s)")
    parser.add_argument("--wait", type=int, default=None,
                        help="unrecorded steps before warm-up (default: 1, "
                        "or %d on a GPU)" % cuda_wait)
    parser.add_argument("--warmup", type=int, default=1,
                        help="warm-up steps, traced but discarded (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op CPU threads (0: leave PyTorch's default)")
    parser.add_argument("--record-shapes", action="store_true",
                        help="record input shapes of every op (bigger capture)")
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    if args.wait is None:
        args.wait = cuda_wait if args.device == "cuda" else 1
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: this PyTorch sees no CUDA device")
    if args.steps < 1 or args.wait < 0 or args.warmup < 0:
        parser.error("--steps must be >= 1, --wait and --warmup >= 0")
    torch.manual_seed(args.seed)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    return args


def cuda_sync(device):
    """Waits for the device when it is a GPU; a no-op on the CPU."""
    if device == "cuda":
        torch.cuda.synchronize()


def amp_dtype(device):
    """The mixed-precision type for the device: bf16, or fp16 on GPUs without it."""
    if device == "cuda" and not torch.cuda.is_bf16_supported():
        return torch.float16
    return torch.bfloat16


def autocast(device):
    """Mixed precision for the forward pass (used by every loop but the fp32 one,
    so that only that one lacks it)."""
    return torch.autocast(device_type=device, dtype=amp_dtype(device))


def describe_environment(device):
    """What was used to record: framework, hardware, OS.  A dict of strings."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    os_name = platform.platform()
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip().strip('"')
                    break
    except OSError:
        pass
    env = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_threads": str(torch.get_num_threads()),
        "os": os_name,
        "kineto": str(_kineto_available()),
        "device": device,
    }
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        env["gpu_count"] = str(torch.cuda.device_count())
        env["cuda"] = str(torch.version.cuda)
    return env


def _kineto_available():
    fn = getattr(torch.autograd, "kineto_available", None)
    return bool(fn()) if fn is not None else False


def _gzip_file(src, dst):
    # mtime=0 keeps the gzip header free of the recording time.
    tmp = dst + ".part"
    with open(src, "rb") as fin, open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                           compresslevel=9) as fout:
            shutil.copyfileobj(fin, fout)
    os.replace(tmp, dst)


def _portable_argv(argv):
    """The command-line arguments with the output path reduced to its file name."""
    out, take = [], False
    for a in argv:
        if take:
            a, take = os.path.basename(a), False
        elif a == "--out":
            take = True
        elif a.startswith("--out="):
            a = "--out=" + os.path.basename(a[len("--out="):])
        out.append(a)
    return out


class Capture:
    """Context manager around torch.profiler.profile for one capture.

    expect lists the rule ids (CONTRACTS.md) the diagnosis must raise above
    info for this capture on a GPU; allow lists rules that are consistent with
    the bottleneck and may also be raised.  Both are written into the trace's
    metadata (key "chokepoint_capture") when the build has Kineto.

    Usage:
        with Capture(args, scenario="input-bound", expect=["input-bound"]) as cap:
            for _ in cap.steps():
                ...one training step...
        cap.report(extra_figures)

    cap.steps() yields wait + warmup + steps iterations and calls
    profiler.step() after each one.
    """

    def __init__(self, args, scenario, expect, allow=()):
        self.args = args
        self.scenario = scenario
        self.expect = list(expect)
        self.allow = list(allow)
        self.written = False
        self.step_times = []
        activities = [ProfilerActivity.CPU]
        if args.device == "cuda":
            activities.append(ProfilerActivity.CUDA)
        self._prof = profile(
            activities=activities,
            schedule=schedule(wait=args.wait, warmup=args.warmup,
                              active=args.steps, repeat=1),
            on_trace_ready=self._on_trace_ready,
            record_shapes=args.record_shapes,
            profile_memory=False,
            with_stack=False,
        )

    def _on_trace_ready(self, prof):
        out = os.path.abspath(self.args.out)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if out.endswith(".gz"):
            # Export beside the target under its uncompressed name (Kineto
            # records that path as traceName), then compress it.
            plain = out[:-3]
            try:
                prof.export_chrome_trace(plain)
                _gzip_file(plain, out)
            finally:
                if os.path.exists(plain):
                    os.unlink(plain)
        else:
            prof.export_chrome_trace(out)
        self.written = True

    def __enter__(self):
        self._prof.__enter__()
        return self

    def _add_metadata(self):
        # Only a Kineto build keeps metadata, and only while it is tracing; it
        # lands as a top-level key of the trace, next to schemaVersion.
        add = getattr(self._prof, "add_metadata_json", None)
        if add is None or not _kineto_available():
            return
        add("chokepoint_capture", json.dumps({
            "scenario": self.scenario,
            "expect": self.expect,
            "allow": self.allow,
            "script": os.path.basename(sys.argv[0]),
            "argv": _portable_argv(sys.argv[1:]),
        }))

    def __exit__(self, *exc):
        return self._prof.__exit__(*exc)

    @property
    def total_steps(self):
        return self.args.wait + self.args.warmup + self.args.steps

    @property
    def profiler(self):
        return self._prof

    def steps(self):
        for i in range(self.total_steps):
            if i == self.args.wait + self.args.warmup:
                self._add_metadata()
            t0 = time.perf_counter()
            yield i
            self.step_times.append(time.perf_counter() - t0)
            self._prof.step()

    def report(self, **figures):
        """Prints one JSON line describing the run and checks the output exists."""
        if not self.written or not os.path.exists(self.args.out):
            sys.exit("%s: the profiler wrote no trace to %s" % (sys.argv[0], self.args.out))
        active = self.step_times[self.args.wait + self.args.warmup:]
        line = {
            "capture": os.path.basename(self.args.out),
            "scenario": self.scenario,
            "expect": self.expect,
            "bytes": os.path.getsize(self.args.out),
            "active_steps": len(active),
            "mean_step_ms": round(1000.0 * sum(active) / max(1, len(active)), 3),
            "env": describe_environment(self.args.device),
        }
        for key, value in figures.items():
            line[key] = round(value, 4) if isinstance(value, float) else value
        print(json.dumps(line, sort_keys=True), flush=True)
