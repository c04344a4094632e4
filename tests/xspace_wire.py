# xspace_wire.py: the protobuf wire walk the XSpace oracles share
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Decodes the wire format by hand (no protobuf package), independently of
# the C reader, for tests/xplane-count.py and tests/xla-count.py. Field
# numbers are those of tensorflow/tsl/profiler/protobuf/xplane.proto:
# XSpace.planes = 1; XPlane.name = 2, lines = 3, event_metadata = 4,
# stat_metadata = 5, stats = 6; X{Event,Stat}Metadata.name = 2; and
# XEventMetadata.display_name = 4, stats = 5.


import struct


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return r, i


def fields(b, start, end):
    """(field, wire type, value) of a message: an int for varints, bytes
    for fixed64 and fixed32, (start, end) into b for length-delimited."""
    i = start
    while i < end:
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v = b[i:i + 8]
            i += 8
        elif w == 5:
            v = b[i:i + 4]
            i += 4
        elif w == 2:
            n, i = varint(b, i)
            v = (i, i + n)
            i += n
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def text(b, span):
    return b[span[0]:span[1]].decode("utf-8", "replace")


def stat(b, span, names):
    """(name, value) of an XStat, its name from names (the plane's stat
    metadata): int64 and uint64 as int, double as float, str, a reference
    as the referenced name, bytes as the (start, end) span into b."""
    sid, value = None, None
    for f, w, v in fields(b, *span):
        if f == 1:
            sid = v
        elif f == 2:
            value = struct.unpack("<d", v)[0]
        elif f == 3:
            value = v
        elif f == 4:
            value = s64(v)
        elif f == 5:
            value = text(b, v)
        elif f == 6:
            value = (v[0], v[1])
        elif f == 7:
            value = names.get(v, "")
    return names.get(sid, ""), value


def _map_entries(b, span):
    """The (key, value span) of each entry of a map<int64, message> field."""
    key, value = 0, None
    for mf, mw, mv in fields(b, *span):
        if mf == 1:
            key = s64(mv)
        elif mf == 2:
            value = mv
    return key, value


def planes(b):
    """Each XPlane of the XSpace in b, in file order, as a dict: name;
    lines and pstats (spans of the XLine and XStat messages); stats, the
    stat metadata (id -> name); emeta, the event metadata (id -> {name,
    display, stats: spans of its XStats})."""
    out = []
    for f, w, v in fields(b, 0, len(b)):
        if f != 1 or w != 2:
            continue
        p = {"name": "", "lines": [], "stats": {}, "emeta": {}, "pstats": []}
        for pf, pw, pv in fields(b, *v):
            if pf == 2:
                p["name"] = text(b, pv)
            elif pf == 3:
                p["lines"].append(pv)
            elif pf == 6:
                p["pstats"].append(pv)
            elif pf == 5:
                key, mv = _map_entries(b, pv)
                name = ""
                if mv is not None:
                    for qf, qw, qv in fields(b, *mv):
                        if qf == 2:
                            name = text(b, qv)
                p["stats"][key] = name
            elif pf == 4:
                key, mv = _map_entries(b, pv)
                m = {"name": "", "display": "", "stats": []}
                if mv is not None:
                    for qf, qw, qv in fields(b, *mv):
                        if qf == 2:
                            m["name"] = text(b, qv)
                        elif qf == 4:
                            m["display"] = text(b, qv)
                        elif qf == 5:
                            m["stats"].append(qv)
                p["emeta"][key] = m
        out.append(p)
    return out
