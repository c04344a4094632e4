# chrome_json.py: what the Chrome-trace oracles share (tests/*-count.py,
# input-share.py, kernel-busy.py): opening a plain or gzip capture, exact
# decimal µs as integer ns, and the device an event belongs to
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Written from the Trace Event Format and Kineto's conventions, not from the
# C reader: times are decimal µs, rounded half to even at the ns as a
# decimal; a device is the event's args.device, else its pid when that is a
# small non-negative number (Kineto puts device work on pid = device).

import decimal
import gzip


def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "rt", encoding="utf-8", errors="replace")


def ns(value):
    if isinstance(value, str):
        value = decimal.Decimal(value.strip())
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def device_of(event):
    args = event.get("args")
    if isinstance(args, dict):
        d = args.get("device")
        if isinstance(d, int) and d >= 0:
            return d
    pid = event.get("pid")
    if isinstance(pid, int) and 0 <= pid < 4096:
        return pid
    return 0
