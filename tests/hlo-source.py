#!/usr/bin/env python3
# hlo-source.py: an independent reading of where each HLO op of an XPlane
# capture comes from, and how much device time each source line takes
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Decodes the wire format with tests/xspace_wire.py (not the C reader).
# The "Hlo Proto" stat of each event metadata on /host:metadata (its id the
# program id) is an HloProto: hlo_module = 1; HloModuleProto.name = 1,
# computations = 3, stack_frame_index = 17; HloComputationProto.
# instructions = 2; HloInstructionProto.name = 1, metadata = 7;
# OpMetadata.op_name = 2, source_file = 3, source_line = 4, stack_frame_id
# = 15; StackFrameIndexProto.file_names = 1, function_names = 2,
# file_locations = 3 (file_name_id = 1, function_name_id = 2, line = 3),
# stack_frames = 4 (file_location_id = 1, parent_frame_id = 2), ids 1-based.
#
# An instruction's source: source_file and source_line when set; else the
# innermost frame of its stack whose file is not under site-packages or
# dist-packages (nor "<...>"), else the innermost frame. Instructions with
# no op name, file or frame are left out; the first of a (program, op)
# stays.
#
# Device time: every event of a /device:GPU or /device:TPU plane whose
# stats (on the event, else its metadata) have program_id and hlo_op (a
# TPU XLA Ops line's event is named after its op), summed per "file:line"
# of its op's source ("FILE(LINE): FUNCTION", or "FILE(LINE)"), in ns:
# (offset + duration) // 1000 - offset // 1000. The kernel lines alone
# ("kernel_time_by_line": the lines of GPU stream events) are what the
# Kernels pane's Code page sums.
#
# Prints {path: {"sources": {"PROGRAM/OP": [op_name, file, line,
# function]}, "time_by_line": {CODE: ns}, "kernel_time_by_line": {CODE:
# ns}}} for each capture that has
# HLO sources; tests/test-xla.c compares.

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace_wire import fields, planes, s64, stat, text  # noqa: E402


def library(name):
    return "site-packages" in name or "dist-packages" in name or name.startswith("<")


def read_stack_index(b, span):
    files, funcs, locs, frames = [], [], [], []
    for f, w, v in fields(b, *span):
        if f == 1 and w == 2:
            files.append(text(b, v))
        elif f == 2 and w == 2:
            funcs.append(text(b, v))
        elif f == 3 and w == 2:
            d = {1: 0, 2: 0, 3: 0}
            for g, gw, gv in fields(b, *v):
                if gw == 0 and g in d:
                    d[g] = gv
            locs.append(d)
        elif f == 4 and w == 2:
            d = {1: 0, 2: 0}
            for g, gw, gv in fields(b, *v):
                if gw == 0 and g in d:
                    d[g] = gv
            frames.append(d)
    return files, funcs, locs, frames


def frame_source(index, fid):
    files, funcs, locs, frames = index
    first = None
    hops = 0
    while 0 < fid <= len(frames) and hops < len(frames):
        fr = frames[fid - 1]
        if not 0 < fr[1] <= len(locs):
            break
        loc = locs[fr[1] - 1]
        if not 0 < loc[1] <= len(files):
            break
        func = funcs[loc[2] - 1] if 0 < loc[2] <= len(funcs) else ""
        here = (files[loc[1] - 1], loc[3], func)
        if first is None:
            first = here
        if not library(here[0]):
            return here
        fid = fr[2]
        hops += 1
    return first


def read_hlo(b, span, program, out):
    for f, w, v in fields(b, *span):
        if f != 1 or w != 2:
            continue
        index = ([], [], [], [])
        for g, gw, gv in fields(b, *v):
            if g == 17 and gw == 2:
                index = read_stack_index(b, gv)
        for g, gw, gv in fields(b, *v):
            if g != 3 or gw != 2:
                continue
            for h, hw, hv in fields(b, *gv):
                if h != 2 or hw != 2:
                    continue
                name, op_name, sfile, line, frame, has_md = "", "", "", 0, 0, False
                for i, iw, iv in fields(b, *hv):
                    if i == 1 and iw == 2:
                        name = text(b, iv)
                    elif i == 7 and iw == 2:
                        has_md = True
                        for j, jw, jv in fields(b, *iv):
                            if j == 2 and jw == 2:
                                op_name = text(b, jv)
                            elif j == 3 and jw == 2:
                                sfile = text(b, jv)
                            elif j == 4 and jw == 0:
                                line = jv
                            elif j == 15 and jw == 0:
                                frame = jv
                if not name or not has_md or (not op_name and not sfile and not frame):
                    continue
                func = ""
                if sfile:
                    src = (sfile, line)
                elif frame:
                    fs = frame_source(index, frame)
                    src = (fs[0], fs[1]) if fs else ("", 0)
                    func = fs[2] if fs else ""
                else:
                    src = ("", 0)
                key = "%d/%s" % (program, name)
                if key not in out:
                    out[key] = [op_name, src[0], src[1], func]


def count(path):
    with open(path, "rb") as fh:
        b = fh.read()
    if b"Hlo Proto" not in b:
        return None
    sources = {}
    ps = planes(b)
    for p in ps:
        if p["name"] != "/host:metadata":
            continue
        for mid, m in p["emeta"].items():
            for span in m["stats"]:
                k, v = stat(b, span, p["stats"])
                if k == "Hlo Proto" and isinstance(v, tuple):
                    read_hlo(b, v, mid, sources)
    if not sources:
        return None
    time_by_line = {}
    kernel_time_by_line = {}
    for p in ps:
        if not (p["name"].startswith("/device:GPU:") or p["name"].startswith("/device:TPU:")):
            continue
        meta_stats = {}
        for mid, m in p["emeta"].items():
            d = {}
            for span in m["stats"]:
                k, v = stat(b, span, p["stats"])
                d[k] = v
            meta_stats[mid] = d
        for line in p["lines"]:
            lname = ""
            for lf, lw, lv in fields(b, *line):
                if lf == 2 and lw == 2:
                    lname = text(b, lv)
            for lf, lw, lv in fields(b, *line):
                if lf != 4 or lw != 2:
                    continue
                mid, off, dur, st = 0, 0, 0, {}
                for ef, ew, ev in fields(b, *lv):
                    if ef == 1:
                        mid = ev
                    elif ef == 2:
                        off = s64(ev)
                    elif ef == 3:
                        dur = s64(ev)
                    elif ef == 4:
                        k, v = stat(b, ev, p["stats"])
                        st[k] = v
                merged = dict(meta_stats.get(mid, {}))
                merged.update(st)
                prog = merged.get("program_id")
                op = merged.get("hlo_op") or p["emeta"].get(mid, {}).get("name", "")
                if not isinstance(prog, int) or not op:
                    continue
                src = sources.get("%d/%s" % (prog, op))
                if src is None or not src[1]:
                    continue
                key = "%s(%d): %s" % (src[1], src[2], src[3]) if src[3] else "%s(%d)" % (src[1], src[2])
                # As the readers do: start and end each floored to the ns.
                ns = (off + dur) // 1000 - off // 1000
                time_by_line[key] = time_by_line.get(key, 0) + ns
                if lname.startswith("Stream #"):
                    kernel_time_by_line[key] = kernel_time_by_line.get(key, 0) + ns
    return {"sources": sources, "time_by_line": time_by_line, "kernel_time_by_line": kernel_time_by_line}


def main():
    result = {}
    paths = []
    for arg in sys.argv[1:]:
        if os.path.isdir(arg):
            for root, _, names in os.walk(arg):
                for n in names:
                    if n.endswith(".xplane.pb"):
                        paths.append(os.path.join(root, n))
        else:
            paths.append(arg)
    for p in sorted(paths):
        try:
            r = count(p)
        except (ValueError, OSError, IndexError):
            continue
        if r is not None:
            result[p] = r
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
