# content_hash.py: a run's name as the history gives it, computed here by
# the xxHash project's own `xxhsum` (Debian's xxhash package), never by
# Chokepoint's code.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later

import shutil
import subprocess


def available():
    return shutil.which("xxhsum") is not None


def content_hash(path):
    """'xxh64:' and the XXH64 (seed 0) of the file's bytes."""
    out = subprocess.run(["xxhsum", "-H1", path], capture_output=True, text=True, check=True).stdout
    return "xxh64:" + out.split()[0]
