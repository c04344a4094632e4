#!/usr/bin/env python3
# house-figures.py: the figures issue 48 tracks, printed from the tree
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tools/house-figures.py [--root DIR] [--top N] [--ci-log FILE]
#
# Prints, for the C sources under src/:
# 1. per folder, the number of .c and .h files and their lines;
# 2. the N largest .c files (15 unless --top says otherwise);
# 3. the lines longer than 100 and 120 columns;
# 4. every function longer than 100 lines (name, file:line, length) and
#    how many are longer than 150 and 200.
# With --ci-log FILE, also the wall time of each step of a .ci/run log:
# a step starts at a "=== Step: NAME ===" line and its time is the later
# "step NAME took N s" (or "took Ns") line.
#
# Functions are found by the project's GNU style, not by parsing C: a
# return type on a line of its own, then "name (" at column 0, the
# parameters, then "{" alone at column 0; the body ends at the first "}"
# at column 0. A function's length counts from its name's line to that
# closing brace, both included. Standard library only; reads, never writes.

import argparse
import collections
import os
import re
import sys

NAME_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) \(")
STEP_RE = re.compile(r"^=== Step: (.+?) ===\s*$")
TOOK_RE = re.compile(r"\bstep (\S+) took ([0-9]+(?:\.[0-9]+)?) ?s\b")

Function = collections.namedtuple("Function", "name path line length")


def c_files(src):
    """Every .c and .h file under src, as paths relative to the root."""
    found = []
    for folder, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                found.append(os.path.join(folder, name))
    return found


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def is_return_type(line):
    """A line that can hold a function's return type in GNU style."""
    if not line or not (line[0].isalpha() or line[0] == "_"):
        return False
    return not line.rstrip().endswith((";", ",", "{", "}", "\\"))


def functions(path, lines):
    """The function definitions of one file, by the GNU-style layout."""
    found = []
    i = 1
    while i < len(lines):
        m = NAME_RE.match(lines[i])
        if m is None or not is_return_type(lines[i - 1]):
            i += 1
            continue
        # The parameters run to a "{" alone at column 0; a ";" or a blank
        # line first means a declaration or something else.
        j = i
        while j < len(lines) and lines[j] != "{":
            if lines[j].rstrip().endswith(";") or lines[j].strip() == "":
                j = -1
                break
            j += 1
        if j < 0 or j >= len(lines):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        if k >= len(lines):
            i += 1
            continue
        found.append(Function(m.group(1), path, i + 1, k - i + 1))
        i = k + 1
    return found


def folder_of(rel):
    parts = rel.split(os.sep)
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def print_table(header, rows, right=()):
    """Columns of numbers, and those named in right, are set flush right."""
    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]
    for n, row in enumerate([header] + rows):
        cells = []
        for c, cell in enumerate(row):
            text = str(cell)
            flush = isinstance(cell, (int, float)) or (n > 0 and c in right)
            cells.append(text.rjust(widths[c]) if flush else text.ljust(widths[c]))
        print("  " + "  ".join(cells).rstrip())
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


def ci_steps(path):
    """(name, seconds or None) per step of a .ci/run log, in log order."""
    order = []
    took = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = STEP_RE.match(line)
            if m:
                if m.group(1) not in order:
                    order.append(m.group(1))
                continue
            m = TOOK_RE.search(line)
            if m:
                took[m.group(1)] = float(m.group(2))
                if m.group(1) not in order:
                    order.append(m.group(1))
    return [(name, took.get(name)) for name in order]


def seconds(s):
    return "%d" % s if s == int(s) else "%.1f" % s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="File sizes, long functions and CI step times.")
    parser.add_argument("--root", default=os.path.dirname(here), help="the source tree (this one)")
    parser.add_argument("--top", type=int, default=15, help="how many of the largest .c files")
    parser.add_argument("--ci-log", metavar="FILE", help="a .ci/run log: print each step's wall time")
    args = parser.parse_args()

    os.chdir(args.root)
    if not os.path.isdir("src"):
        sys.exit("house-figures: no src/ under %s" % args.root)

    per_folder = collections.OrderedDict()
    sizes = []
    funcs = []
    over100 = over120 = total = 0
    for path in c_files("src"):
        lines = read_lines(path)
        entry = per_folder.setdefault(folder_of(path), [0, 0, 0, 0])
        kind = 0 if path.endswith(".c") else 2
        entry[kind] += 1
        entry[kind + 1] += len(lines)
        total += len(lines)
        for line in lines:
            width = len(line.expandtabs(8))
            over100 += width > 100
            over120 += width > 120
        if path.endswith(".c"):
            sizes.append((len(lines), path))
            funcs.extend(functions(path, lines))

    print("Files in src/ (.c and .h)")
    rows = []
    for folder in sorted(per_folder):
        c, c_lines, h, h_lines = per_folder[folder]
        rows.append([folder + "/", c, c_lines, h, h_lines, c + h, c_lines + h_lines])
    rows.append(["all", sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows),
                 sum(r[4] for r in rows), sum(r[5] for r in rows), sum(r[6] for r in rows)])
    print_table(["folder", ".c", "lines", ".h", "lines", "files", "all lines"], rows)

    print("\nThe %d largest .c files" % args.top)
    sizes.sort(key=lambda s: (-s[0], s[1]))
    print_table(["lines", "file"], [[n, p] for n, p in sizes[:args.top]])

    print("\nLines wider than 100 columns: %d; wider than 120: %d (of %d)" % (over100, over120, total))

    long_ones = sorted((f for f in funcs if f.length > 100), key=lambda f: (-f.length, f.path, f.line))
    print("\nFunctions longer than 100 lines: %d (over 150: %d, over 200: %d; %d functions in all)"
          % (len(long_ones), sum(f.length > 150 for f in funcs), sum(f.length > 200 for f in funcs), len(funcs)))
    print_table(["lines", "function", "where"],
                [[f.length, f.name, "%s:%d" % (f.path, f.line)] for f in long_ones])

    if args.ci_log:
        try:
            steps = ci_steps(args.ci_log)
        except OSError as e:
            sys.exit("house-figures: %s: %s" % (args.ci_log, e.strerror))
        print("\nCI steps in %s" % args.ci_log)
        if not steps:
            print("  no '=== Step: NAME ===' or 'step NAME took N s' line")
        else:
            timed = [s for _, s in steps if s is not None]
            rows = [[name, seconds(s) if s is not None else "no time printed"] for name, s in steps]
            rows.append(["all timed steps", seconds(sum(timed))])
            print_table(["step", "seconds"], rows, right=(1,))
    return 0


if __name__ == "__main__":
    sys.exit(main())
