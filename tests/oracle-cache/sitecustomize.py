# sitecustomize.py: replays the output of an independent oracle
# (tests/*-count.py and the other oracles) that already ran on the same
# inputs in this CI run, so that the sanitizer suite checks the C code
# against the oracles without running them a second time.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Inert unless CP_ORACLE_CACHE names a folder (.ci/run sets it, and clears
# the folder when it starts). tests/meson.build puts this folder on every
# test's PYTHONPATH, so Python imports this module at start-up. For an
# oracle script, the key is the SHA-256 of the script and the Python files
# beside it (the modules it imports), its arguments, and each argument that
# names a file or folder: its size and modification time (folders: each
# entry's). A hit prints the stored output and exits 0; a miss runs the
# script and stores what it printed when it exits with 0.

import atexit
import hashlib
import io
import os
import sys

ORACLES = ("-count.py", "kernel-busy.py", "input-share.py", "history-oracle.py", "hlo-source.py", "source-chain.py",
           "fleet_oracle.py", "content_hash.py")


def _stat_line(path):
    st = os.stat(path)
    return "%s %d %d\n" % (path, st.st_size, st.st_mtime_ns)


def _key(script, args):
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(script))
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    h.update(os.path.basename(script).encode())
    for a in args:
        h.update(b"\0arg\0" + a.encode("utf-8", "surrogateescape"))
        try:
            if os.path.isfile(a):
                h.update(_stat_line(a).encode("utf-8", "surrogateescape"))
            elif os.path.isdir(a):
                for dirpath, dirnames, filenames in os.walk(a):
                    dirnames.sort()
                    for name in sorted(filenames):
                        h.update(_stat_line(os.path.join(dirpath, name)).encode("utf-8", "surrogateescape"))
        except OSError:
            pass
    return h.hexdigest()


class _Tee(io.TextIOBase):
    def __init__(self, out):
        self.out = out
        self.kept = io.StringIO()

    def write(self, s):
        self.kept.write(s)
        return self.out.write(s)

    def flush(self):
        self.out.flush()


def _start():
    cache = os.environ.get("CP_ORACLE_CACHE")
    if not cache or not sys.argv or not sys.argv[0].endswith(ORACLES):
        return
    try:
        key = _key(sys.argv[0], sys.argv[1:])
    except OSError:
        return
    path = os.path.join(cache, key)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            sys.stdout.write(f.read())
        sys.stdout.flush()
        os._exit(0)

    state = {"ok": True}
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    real_exit = sys.exit
    real_hook = sys.excepthook

    def exit_(code=None):
        state["ok"] = code in (None, 0)
        real_exit(code)

    def hook(*exc):
        state["ok"] = False
        real_hook(*exc)

    def save():
        if not state["ok"]:
            return
        os.makedirs(cache, exist_ok=True)
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(tee.kept.getvalue())
        os.replace(tmp, path)

    sys.exit = exit_
    sys.excepthook = hook
    atexit.register(save)


_start()
