#!/usr/bin/env python3
# tests/fuzz/make-corpus.py CP_GEN: (re)writes the seed corpora of the fuzz
# harnesses under tests/fuzz/corpus/ from the project's test fixtures and
# from small captures of the scenario generator (pruned to a few dozen
# events each, so that every seed stays a few KiB). Run it from the source
# root after changing the fixtures or the generator; commit the result.
# Deterministic: the same inputs give the same files.

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, 'tests', 'fuzz', 'corpus')
SCENARIOS = ['healthy', 'input-bound', 'launch-bound', 'pageable-transfers',
             'sync-stalls', 'fp32-no-tensor-cores', 'comm-bound']

# --- protobuf wire format -----------------------------------------------

def read_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i

def fields(b):
    i = 0
    out = []
    while i < len(b):
        tag, i = read_varint(b, i)
        num, wire = tag >> 3, tag & 7
        if wire == 0:
            v, i = read_varint(b, i)
        elif wire == 1:
            v = b[i:i + 8]; i += 8
        elif wire == 5:
            v = b[i:i + 4]; i += 4
        elif wire == 2:
            n, i = read_varint(b, i)
            v = b[i:i + n]; i += n
        else:
            raise ValueError('wire type %d' % wire)
        out.append((num, wire, v))
    return out

def varint(v):
    out = bytearray()
    while True:
        c = v & 0x7f
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)

def encode(flds):
    out = bytearray()
    for num, wire, v in flds:
        out += varint((num << 3) | wire)
        if wire == 0:
            out += varint(v)
        elif wire == 2:
            out += varint(len(v)) + v
        else:
            out += v
    return bytes(out)

def stat_ids(stat_bytes):
    ids = set()
    for num, wire, v in fields(stat_bytes):
        if num == 1 and wire == 0:
            ids.add(v)
        if num == 7 and wire == 0:   # ref_value names a stat metadata too
            ids.add(v)
    return ids

def prune_plane(plane, events_per_line):
    flds = fields(plane)
    used_events, used_stats = set(), set()
    kept = []
    for num, wire, v in flds:
        if num == 3:   # lines
            line = []
            n = 0
            for lnum, lwire, lv in fields(v):
                if lnum == 4:
                    if n >= events_per_line:
                        continue
                    n += 1
                    for enum_, ewire, ev in fields(lv):
                        if enum_ == 1:
                            used_events.add(ev)
                        if enum_ == 4:
                            used_stats |= stat_ids(ev)
                line.append((lnum, lwire, lv))
            kept.append((num, wire, encode(line)))
        elif num == 6:
            used_stats |= stat_ids(v)
            kept.append((num, wire, v))
        else:
            kept.append((num, wire, v))
    out = []
    for num, wire, v in kept:
        if num in (4, 5):   # event / stat metadata maps
            entry = fields(v)
            key = next((ev for en, ew, ev in entry if en == 1), None)
            if num == 4:
                if key not in used_events:
                    continue
                for en, ew, ev in entry:
                    if en == 2:
                        for mn, mw, mv in fields(ev):
                            if mn == 5:
                                used_stats |= stat_ids(mv)
        out.append((num, wire, v))
    final = []
    for num, wire, v in out:
        if num == 5:
            key = next((ev for en, ew, ev in fields(v) if en == 1), None)
            if key not in used_stats:
                continue
        final.append((num, wire, v))
    return encode(final)

def prune_xspace(data, events_per_line=3):
    out = []
    for num, wire, v in fields(data):
        if num == 1:
            v = prune_plane(v, events_per_line)
        out.append((num, wire, v))
    return encode(out)

# --- JSON -------------------------------------------------------------------

def prune_json(text, n_events=40):
    doc = json.loads(text)
    events = doc.get('traceEvents', [])
    meta = [e for e in events if e.get('ph') == 'M']
    rest = [e for e in events if e.get('ph') != 'M']
    # Events of every phase and category, then the first ones in file order.
    seen, keep = set(), []
    for e in rest:
        k = (e.get('ph'), e.get('cat'))
        if k not in seen:
            seen.add(k)
            keep.append(e)
    for e in rest:
        if len(keep) >= n_events:
            break
        if e not in keep:
            keep.append(e)
    doc['traceEvents'] = meta[:12] + sorted(keep, key=lambda e: rest.index(e))
    return json.dumps(doc, separators=(',', ':')).encode()

# --- writing ------------------------------------------------------------------

def put(harness, name, data):
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)

def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode='wb', mtime=0) as g:
        g.write(data)
    return buf.getvalue()

def zst(data, path_tmp):
    p = subprocess.run(['zstd', '-q', '-c', '-3'], input=data, stdout=subprocess.PIPE, check=True)
    return p.stdout

def xplane_plane(pid, name, line_ts, n_events=1):
    """A plane with one line of n_events events named "op"."""
    events = b''.join(encode([(4, 2, encode([(1, 0, 1), (2, 0, 1000 * i), (3, 0, 500)]))])
                      for i in range(n_events))
    line = encode([(1, 0, 1), (3, 0, line_ts & ((1 << 64) - 1))]) + events
    meta = encode([(1, 0, 1), (2, 2, encode([(1, 0, 1), (2, 2, b'op')]))])
    return encode([(1, 0, pid), (2, 2, name.encode()), (3, 2, line), (4, 2, meta)])

def hostile_seeds():
    """Shapes that once took quadratic time or overflowed (issue: many
    planes wanting one pid, many processes, extreme timestamps)."""
    many_gpus = b''.join(encode([(1, 2, xplane_plane(i % 3, '/device:GPU:%d' % i, 1700000000000000000))])
                         for i in range(300))
    put('xplane-reader', 'hostile-many-gpu-planes.xplane.pb', many_gpus)
    many_hosts = b''.join(encode([(1, 2, xplane_plane(i, '/host:CPU%d' % i, 1700000000000000000))])
                          for i in range(300))
    put('xplane-reader', 'hostile-many-host-planes.xplane.pb', many_hosts)
    extreme = encode([(1, 2, xplane_plane(1, '/host:CPU', (1 << 63) - 1) +
                       encode([(3, 2, encode([(1, 0, 2), (3, 0, (1 << 63) & ((1 << 64) - 1))]) +
                                encode([(4, 2, encode([(1, 0, 1), (2, 0, 0), (3, 0, 5000)]))]))]))])
    put('xplane-reader', 'hostile-extreme-timestamps.xplane.pb', extreme)
    pids = ',\n'.join('{"ph":"X","name":"op","pid":%d,"tid":1,"ts":%d,"dur":1}' % (i, i) for i in range(500))
    put('chrome-reader', 'hostile-many-pids.json', ('{"traceEvents":[\n%s]}' % pids).encode())
    put('chrome-reader', 'hostile-extreme-ts.json',
        b'{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":9223372036854775,"dur":1},'
        b'{"ph":"X","name":"b","pid":1,"tid":1,"ts":-9223372036854775,"dur":1},'
        b'{"ph":"X","name":"c","pid":1,"tid":1,"ts":1,"dur":9223372036854775},'
        b'{"ph":"i","name":"d","pid":1,"tid":1,"ts":-9223372036854775},'
        b'{"ph":"C","name":"e","pid":1,"ts":9223372036854775,"args":{"v":1}}]}')
    doc = '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}'
    put('source', 'utf16le-bom.json', b'\xff\xfe' + doc.encode('utf-16-le'))
    put('source', 'utf32be.json', doc.encode('utf-32-be'))

def main():
    if len(sys.argv) != 2:
        sys.exit('usage: make-corpus.py PATH-TO-cp-gen')
    cp_gen = sys.argv[1]
    for h in ('json-tokenizer', 'chrome-reader', 'source', 'protobuf', 'xplane-reader'):
        shutil.rmtree(os.path.join(CORPUS, h), ignore_errors=True)

    fixtures = os.path.join(ROOT, 'tests', 'data', 'chrome')
    for name in sorted(os.listdir(fixtures)):
        with open(os.path.join(fixtures, name), 'rb') as f:
            data = f.read()
        if len(data) > 16384:
            continue
        put('json-tokenizer', 'fixture-' + name, data)
        put('chrome-reader', 'fixture-' + name, data)

    # Hand-written JSON edge cases for the tokenizer.
    cases = {
        'escapes.json': b'{"a\\"b":"\\u00e9\\ud83d\\ude00\\ud800x\\n\\t\\/\\\\","k":["\\u0000"]}',
        'numbers.json': b'[0,-0,1e400,-1E-400,123456789012345678901234567890,1.5e3,-2.25,NaN,Infinity,-Infinity,1700000000123.456]',
        'literals.json': b'[true,false,null,[],{},[[]],{"a":{}}]',
        'trailing.json': b'{"a":[1,2,],"b":{"c":1,},}',
        'bom.json': b'\xef\xbb\xbf{"traceEvents":[]}',
        'utf8.json': b'["caf\xc3\xa9","\xff\xfe","\xe2\x82","\xf0\x9f\x98\x80"]',
        'deep.json': b'[' * 200 + b']' * 200,
        'control.json': b'["a\x01b\x1f"]',
    }
    for name, data in cases.items():
        put('json-tokenizer', name, data)

    with tempfile.TemporaryDirectory() as tmp:
        for s in SCENARIOS:
            jp = os.path.join(tmp, s + '.json')
            xp = os.path.join(tmp, s + '.xplane.pb')
            subprocess.run([cp_gen, '--scenario', s, '--steps', '1', '--seed', '3', '-q', '--out', jp], check=True)
            subprocess.run([cp_gen, '--scenario', s, '--steps', '1', '--seed', '3', '-q', '--out', xp], check=True)
            with open(jp, 'rb') as f:
                j = prune_json(f.read())
            with open(xp, 'rb') as f:
                x = prune_xspace(f.read())
            put('chrome-reader', 'gen-%s.json' % s, j)
            put('xplane-reader', 'gen-%s.xplane.pb' % s, x)
            put('protobuf', 'gen-%s.xplane.pb' % s, x)
            if s in ('healthy', 'launch-bound'):
                put('json-tokenizer', 'gen-%s.json' % s, j)
                put('chrome-reader', 'gen-%s.json.gz' % s, gz(j))
                put('chrome-reader', 'gen-%s.json.zst' % s, zst(j, tmp))
                put('xplane-reader', 'gen-%s.xplane.pb.gz' % s, gz(x))
                put('xplane-reader', 'gen-%s.xplane.pb.zst' % s, zst(x, tmp))
            if s == 'healthy':
                put('source', 'gen-healthy.json.gz', gz(j))
                put('source', 'gen-healthy.json.zst', zst(j, tmp))
                put('source', 'gen-healthy.xplane.pb.zst', zst(x, tmp))
                put('source', 'two-members.json.gz', gz(j[:100]) + gz(j[100:]))
                put('source', 'two-frames.json.zst', zst(j[:100], tmp) + zst(j[100:], tmp))
                # A skippable zstd frame first, then a real one.
                put('source', 'skippable.json.zst', b'\x50\x2a\x4d\x18\x04\x00\x00\x00abcd' + zst(j[:300], tmp))
                put('source', 'trailing-garbage.json.gz', gz(j[:200]) + b'garbage')
                put('source', 'truncated.json.gz', gz(j)[:300])
                put('source', 'truncated.json.zst', zst(j, tmp)[:300])
                put('source', 'plain.json', j[:200])
                put('source', 'blank.json.gz', gz(b'   \n'))

    hostile_seeds()

    # Small hand-made protobuf messages: every wire type, a group, packed
    # fields, a map entry.
    pb = {
        'wire-types.pb': bytes([0x08, 0x96, 0x01, 0x11]) + bytes(8) + bytes([0x1d]) + bytes(4)
                         + bytes([0x22, 0x03]) + b'abc',
        'group.pb': bytes([0x0b, 0x08, 0x01, 0x0c]),
        'packed.pb': bytes([0x0a, 0x04, 0x01, 0x96, 0x01, 0x7f]),
        'map.pb': bytes([0x22, 0x06, 0x08, 0x07, 0x12, 0x02, 0x08, 0x01]),
        'varint10.pb': bytes([0x08]) + bytes([0xff] * 9) + bytes([0x01]),
        'nested.pb': bytes([0x0a, 0x06, 0x12, 0x04, 0x1a, 0x02, 0x08, 0x01]),
    }
    for name, data in pb.items():
        put('protobuf', name, data)

if __name__ == '__main__':
    main()
