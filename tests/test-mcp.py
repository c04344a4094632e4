#!/usr/bin/env python3
# test-mcp.py: a whole MCP session with `chokepoint mcp` (TAP)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs the server as a subprocess and talks to it over its stdin and stdout
# as an agent would: initialize, tools/list, then every tool. Oracles: the
# generator's truth and summary (cp-gen --truth/--summary), Python counts
# over the raw events of the capture (Decimal timestamps, so that no
# nanosecond is lost), tests/chrome-count.py for a real capture from
# ../shared/traces (skipped without it), and the command line itself: each
# tool's JSON must equal what `chokepoint info|diagnose|compare|history
# --json` prints, but for the seconds the work took. Then refused paths,
# malformed requests and the cache.

import decimal
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE = os.environ.get("CP_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
CHOKEPOINT = os.environ.get("CP_CHOKEPOINT", "chokepoint")
CP_GEN = os.environ.get("CP_GEN", "cp-gen")
SHARED = os.environ.get("CP_SHARED_TRACES", os.path.join(SOURCE, "..", "shared", "traces"))
REAL = "AMD-AGI__TraceLens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz"
TOOLS = {"capture_summary", "diagnose", "lane_slices", "search_slices", "kernel_stats", "compare",
         "job_ranks", "history_list", "history_trend", "history_show"}
n_test = 0


def ok(cond, what):
    global n_test
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}", flush=True)
    if not cond:
        raise SystemExit(1)


def skip(what, why):
    global n_test
    n_test += 1
    print(f"ok {n_test} - {what} # SKIP {why}", flush=True)


def timeless(node):
    """The JSON without the figures that measure the run itself."""
    if isinstance(node, dict):
        return {k: timeless(v) for k, v in node.items() if not k.endswith("seconds")}
    if isinstance(node, list):
        return [timeless(v) for v in node]
    return node


def cli(*args, env=None):
    r = subprocess.run([CHOKEPOINT, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
    return r.returncode, r.stdout


def cli_json(*args, env=None):
    status, out = cli(*args, env=env)
    ok(status == 0, f"chokepoint {' '.join(a for a in args if not a.startswith('/'))} runs")
    return json.loads(out)


class Session:
    def __init__(self, *args, env=None):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([CHOKEPOINT, "mcp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, env=env)
        self.next_id = 1

    def send_raw(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"not ok - the server ended: {self.stderr()}")
        return json.loads(line)

    def raw(self, line):
        self.send_raw(line)
        return self.read()

    def request(self, method, params=None):
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.next_id += 1
        reply = self.raw(json.dumps(msg))
        assert reply.get("id") == msg["id"], reply
        return reply

    def call(self, name, **arguments):
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        return reply.get("result"), reply.get("error")

    def tool(self, name, **arguments):
        result, error = self.call(name, **arguments)
        ok(error is None and result is not None and result["isError"] is False,
           f"{name} answers ({error or (result['content'][0]['text'][:200] if result['isError'] else 'ok')})")
        text = json.loads(result["content"][0]["text"])
        ok(text == result["structuredContent"], f"{name}: the text content is the structured content")
        return result["structuredContent"]

    def tool_error(self, name, **arguments):
        result, error = self.call(name, **arguments)
        ok(error is None and result["isError"] is True and "structuredContent" not in result,
           f"{name} is a tool error: {result and result['content'][0]['text']}")
        return result["content"][0]["text"]

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def close(self):
        self.proc.stdin.close()
        status = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return status


def raw_events(path):
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    # Kineto writes ts relative to baseTimeNanoseconds when it has one.
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    return (doc["traceEvents"] if isinstance(doc, dict) else doc), base


def gen(out, scenario, *extra):
    truth, summary = out + ".truth", out + ".summary"
    subprocess.run([CP_GEN, "--scenario", scenario, "-o", out, "-t", truth, "--summary", summary, "-q", *extra],
                   check=True)
    with open(truth) as t, open(summary) as s:
        return json.load(t), json.load(s)


def main():
    print("TAP version 13", flush=True)
    tmp = tempfile.mkdtemp(prefix="cp-test-mcp-")
    try:
        session(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n_test}", flush=True)


def session(tmp):
    root = os.path.join(tmp, "root")
    os.makedirs(root)
    outside = os.path.join(tmp, "outside")
    os.makedirs(outside)
    a_path = os.path.join(root, "input-bound.json")
    b_path = os.path.join(root, "input-bound-slow-gemm.json")
    truth, summary = gen(a_path, "input-bound")
    gen(b_path, "input-bound", "--slow-kernel", "gemm", "--slow-factor", "2")
    gen(os.path.join(outside, "secret.json"), "healthy")
    os.symlink(os.path.join(outside, "secret.json"), os.path.join(root, "link-out.json"))
    subprocess.run([CP_GEN, "--job", os.path.join(root, "ranks"), "--truth", os.path.join(tmp, "job.truth")],
                   check=True, capture_output=True)
    with open(os.path.join(tmp, "job.truth")) as f:
        job_truth = json.load(f)
    database = os.path.join(tmp, "history.sqlite")
    env = dict(os.environ, CHOKEPOINT_HISTORY=database, LANGUAGE="C", LC_ALL="C.UTF-8")
    for p in (a_path, b_path):
        status, _ = cli("diagnose", "--record", "--label", "node=n1", "--database", database, p, env=env)
        ok(status == 0, "diagnose --record fills the history")

    real = os.path.join(SHARED, REAL)
    roots = ["--root", root] + (["--root", os.path.dirname(real)] if os.path.exists(real) else [])
    s = Session(*roots, "--database", database, env=env)

    # Before initialize, the tools are not served.
    r = s.request("tools/list")
    ok(r.get("error", {}).get("code") == -32600, "tools/list before initialize is an invalid request")

    # Lifecycle and version negotiation.
    r = s.request("initialize", {"protocolVersion": "2024-01-01", "capabilities": {},
                                 "clientInfo": {"name": "test-mcp", "version": "1"}})
    ok(r["result"]["protocolVersion"] == "2025-06-18", "an unknown version gets the newest")
    r = s.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                 "clientInfo": {"name": "test-mcp", "version": "1"}})
    ok(r["result"]["protocolVersion"] == "2025-03-26", "2025-03-26 is taken")
    ok("tools" in r["result"]["capabilities"] and r["result"]["serverInfo"]["name"] == "chokepoint",
       "initialize names the server and its tools capability")
    r = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "test-mcp", "version": "1"}})
    ok(r["result"]["protocolVersion"] == "2025-06-18", "2025-06-18 is taken")
    s.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    r = s.request("ping")
    ok(r["result"] == {}, "a notification gets no reply; ping answers {}")

    tools = s.request("tools/list")["result"]["tools"]
    ok({t["name"] for t in tools} == TOOLS, f"tools/list lists the {len(TOOLS)} tools")
    for t in tools:
        schema = t["inputSchema"]
        ok(schema["type"] == "object" and set(schema["required"]) <= set(schema["properties"]) and
           all("type" in p and "description" in p for p in schema["properties"].values()),
           f"{t['name']}: its inputSchema is a JSON Schema object with typed, described properties")

    # capture_summary: the generator's summary and the CLI.
    info = s.tool("capture_summary", path=a_path)
    for key in ("slices", "kernels", "transfers", "flows", "counter_samples"):
        ok(info[key] == summary[key], f"capture_summary {key} = {summary[key]} (cp-gen --summary)")
    ok(info["steps"] == truth["steps"], "capture_summary steps = the truth's")
    ok(timeless(info) == timeless(cli_json("info", "--json", a_path)), "capture_summary = info --json")

    # diagnose: the truth's bottleneck and the CLI.
    diag = s.tool("diagnose", path=a_path)
    rules = [f["rule"] for f in diag["findings"] if f["severity"] != "info"]
    ok(all(e in rules for e in truth["expect"]), f"diagnose finds {truth['expect']} (truth)")
    ok(timeless(diag) == timeless(cli_json("diagnose", "--json", a_path)), "diagnose = diagnose --json")
    # The answer says how far it can be trusted: cp-gen's capture is tidy
    # and of several steps.
    ok(diag["confidence"]["level"] == "high" and diag["confidence"]["reasons"] == [],
       "diagnose: confidence high, no reasons, on a tidy capture of %d steps" % truth["steps"])
    ok(diag["window"]["steps_source"] == "markers", "diagnose: window.steps_source markers (ProfilerStep#N)")

    # kernel_stats: counts per kernel name over the raw events.
    events, base = raw_events(a_path)
    per_name = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            per_name[e["name"]] = per_name.get(e["name"], 0) + 1
    ks = s.tool("kernel_stats", path=a_path)
    ok(ks["kernel_names"] == len(per_name), f"kernel_stats: {len(per_name)} kernel names (raw events)")
    ok({k["name"]: k["count"] for k in ks["kernels"]} == per_name, "kernel_stats: each name's count (raw events)")
    ok(all(ks[k] == diag["metrics"][k] for k in ks), "kernel_stats = diagnose's metrics members")

    # lane_slices: the kernels of one stream in the third step, paged.
    lanes = info["lane_list"]
    lane = next(i for i, l in enumerate(lanes) if l["kind"] == "kernel")
    tid = int(lanes[lane]["name"].split()[-1])
    lo, hi = truth["ranges"][2]["start_ns"], truth["ranges"][2]["end_ns"]
    origin = decimal.Decimal(info["origin_ns"] - base)
    expected = []
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel" and e.get("tid") == tid:
            st = int(decimal.Decimal(e["ts"]) * 1000 - origin)
            en = int((decimal.Decimal(e["ts"]) + decimal.Decimal(e.get("dur", 0))) * 1000 - origin)
            if st < hi and en > lo:
                expected.append((st, e["name"]))
    expected.sort()
    got, cursor, pages = [], None, 0
    while True:
        args = {"path": a_path, "lane": lane, "start_ns": lo, "end_ns": hi, "limit": 50}
        if cursor is not None:
            args["cursor"] = cursor
        page = s.tool("lane_slices", **args) if pages == 0 else s.call("lane_slices", **args)[0]["structuredContent"]
        got += [(x["start_ns"], x["name"]) for x in page["slices"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    ok(page["total"] == len(expected) and len(expected) > 50, f"lane_slices: {len(expected)} kernels of stream "
       f"{tid} in step 3 (raw events)")
    ok(got == expected and pages == (len(expected) + 49) // 50, f"lane_slices: the same, in {pages} pages")

    # search_slices: every slice named with "gemm", paged, against the raw events.
    n_gemm = sum(1 for e in events if e.get("ph") == "X" and "gemm" in e.get("name", "").lower())
    found, cursor = [], None
    while True:
        args = {"path": a_path, "query": "gemm", "limit": 500}
        if cursor is not None:
            args["cursor"] = cursor
        page = s.tool("search_slices", **args)
        found += page["slices"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    ok(page["total"] == n_gemm == len(found), f"search_slices gemm: {n_gemm} slices (raw events)")
    ok(all("gemm" in x["name"].lower() for x in found) and
       [x["start_ns"] for x in found] == sorted(x["start_ns"] for x in found), "search_slices: all match, in time order")
    s.tool_error("search_slices", path=a_path, query="(", regex=True)

    # compare: B's gemm kernels run twice as long (the generator's --slow-kernel).
    cmp = s.tool("compare", a=a_path, b=b_path)
    ok(timeless(cmp) == timeless(cli_json("compare", "--json", a_path, b_path)), "compare = compare --json")
    ok(cmp["confidence"]["level"] in ("high", "medium", "low") and "confidence" in cmp["a"] and "confidence" in cmp["b"],
       "compare: the confidence of the comparison and of each side")
    rows = [k for k in cmp["kernels"] if "gemm" in k["key"].lower()]
    ok(rows and all(k["b"]["total_ns"] > 1.8 * k["a"]["total_ns"] for k in rows if k["a"]["total_ns"] > 0),
       "compare: every gemm kernel is about twice as slow in B (--slow-factor 2)")

    # job_ranks: the ranks cp-gen --job wrote.
    ranks = os.path.join(root, "ranks")
    job = s.tool("job_ranks", paths=[ranks])
    ok(job["job"]["n_ranks"] == job_truth["ranks"], f"job_ranks: {job_truth['ranks']} ranks (truth)")
    ok(job["job"]["n_collectives"] == len(job_truth["collectives"]),
       f"job_ranks: {len(job_truth['collectives'])} collectives (truth)")
    rank_files = sorted(os.path.join(ranks, f) for f in os.listdir(ranks))
    ok(timeless(job) == timeless(cli_json("diagnose", "--json", *rank_files, env=env)), "job_ranks = diagnose --json A B...")

    # history: what diagnose --record wrote, as the CLI prints it.
    hl = s.tool("history_list", labels=["node=n1"])
    ok(len(hl["runs"]) == 2, "history_list: the two recorded runs")
    ok(hl == cli_json("history", "list", "--json", "--label", "node=n1", "--database", database, env=env),
       "history_list = history list --json")
    tr = s.tool("history_trend", metric="step_time.mean", threshold=10)
    ok(tr == cli_json("history", "trend", "--json", "--metric", "step_time.mean", "--threshold", "10",
                      "--database", database, env=env), "history_trend = history trend --json")
    ok(len(tr["points"]) == 2, "history_trend: one point a run")
    run_id = str(hl["runs"][0]["id"])
    ok(s.tool("history_show", run=run_id) == cli_json("history", "show", "--json", run_id, "--database", database,
                                                      env=env), "history_show = history show --json")
    s.tool_error("history_trend", metric="no.such.metric")
    s.tool_error("history_show", run="--help")

    # A real capture.
    if os.path.exists(real):
        rinfo = s.tool("capture_summary", path=real)
        count = json.loads(subprocess.run([sys.executable, os.path.join(SOURCE, "tests", "chrome-count.py"), real],
                                          capture_output=True, text=True, check=True).stdout.splitlines()[0])
        ok(rinfo["slices"] == count["slices"], f"real capture: {count['slices']} slices (chrome-count.py)")
        # The server names a capture by its resolved path (links followed,
        # as ../shared may be a link): so does the CLI given that path.
        ok(timeless(rinfo) == timeless(cli_json("info", "--json", os.path.realpath(real))),
           "real capture: capture_summary = info --json")
        ok(timeless(s.tool("diagnose", path=real)) == timeless(cli_json("diagnose", "--json", os.path.realpath(real))),
           "real capture: diagnose = diagnose --json")
    else:
        skip("real capture", f"{real} is missing")

    # Refused paths: outside, through a link, with .., missing.
    loads_before = s.stderr().count("loaded ")
    for bad in (os.path.join(outside, "secret.json"), os.path.join(root, "link-out.json"),
                os.path.join(root, "..", "outside", "secret.json"), "/etc/passwd"):
        msg = s.tool_error("capture_summary", path=bad)
        ok("outside the folders" in msg, f"refused: {bad}")
    msg = s.tool_error("diagnose", path=os.path.join(root, "missing.json"))
    ok("No such file" in msg, "a missing file is a tool error that says so")
    s.tool_error("compare", a=a_path, b=os.path.join(outside, "secret.json"))
    s.tool_error("job_ranks", paths=[a_path, os.path.join(root, "link-out.json")])
    ok(s.stderr().count("loaded ") == loads_before, "nothing refused was read")
    s.tool_error("lane_slices", path=a_path, lane=100000)
    s.tool_error("lane_slices", path=a_path, lane=0, cursor="x")

    # Malformed requests.
    cases = [
        ("{bad", -32700, "not JSON"),
        ("[" * 100000, -32700, "nested 100,000 deep"),
        ('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, "a batch"),
        ('"ping"', -32600, "a string"),
        ('{"id":1,"method":"ping"}', -32600, "no jsonrpc"),
        ('{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600, "jsonrpc 1.0"),
        ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, "an object id"),
        ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, "a fractional id"),
        ('{"jsonrpc":"2.0","id":1,"method":7}', -32600, "a numeric method"),
        ('{"jsonrpc":"2.0","id":1}', -32600, "no method"),
        ('{"jsonrpc":"2.0","id":1,"method":"resources/list"}', -32601, "an unknown method"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}', -32602, "params an array"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}', -32602, "no tool name"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm"}}', -32602, "an unknown tool"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose"}}', -32602, "a missing argument"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose","arguments":{"path":1}}}',
         -32602, "a number for a path"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose","arguments":{"path":"a","x":1}}}',
         -32602, "an unknown argument"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lane_slices","arguments":'
         '{"path":"a","lane":-1}}}', -32602, "a negative lane"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lane_slices","arguments":'
         '{"path":"a","lane":0,"limit":1e3}}}', -32602, "a fractional limit"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compare","arguments":'
         '{"a":"a","b":"b","steps":"sideways"}}}', -32602, "a value outside the enum"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job_ranks","arguments":'
         '{"paths":["a",2]}}}', -32602, "a number in an array of strings"),
    ]
    for line, code, what in cases:
        r = s.raw(line)
        if code is None:
            ok("result" in r or "error" in r, f"malformed: {what} gets a reply")
        else:
            ok(r.get("error", {}).get("code") == code, f"malformed: {what} is {code} ({r.get('error')})")
    s.proc.stdin.flush()
    s.proc.stdin.buffer.write(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff\xfe"}\n')
    s.proc.stdin.buffer.flush()
    r = s.read()
    ok(r.get("error", {}).get("code") == -32700, "malformed: bytes that are not UTF-8 are -32700")
    s.send_raw("")
    s.send_raw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}')
    s.send_raw('{"jsonrpc":"2.0","id":99,"result":{}}')
    ok(s.request("ping")["result"] == {}, "blank lines, notifications and responses get no reply")
    s.send_raw("x" * (17 * 1024 * 1024))
    r = s.read()
    ok(r["error"]["code"] == -32700 and "too long" in r["error"]["message"], "a 17 MiB line is refused")
    ok(s.request("ping")["result"] == {}, "the server goes on after it")

    # The cache: a capture read once serves every call; a rewrite is read again.
    log = s.stderr()
    ok(log.count(f"loaded {a_path} ") == 1, "the capture was read once for all its calls")
    t0 = time.monotonic()
    s.tool("diagnose", path=b_path)
    warm = time.monotonic() - t0
    ok(s.stderr().count(f"loaded {b_path} ") == 1, "a cached capture is not read again")
    os.utime(b_path, (time.time() + 10, time.time() + 10))
    t0 = time.monotonic()
    s.tool("diagnose", path=b_path)
    cold = time.monotonic() - t0
    ok(s.stderr().count(f"loaded {b_path} ") == 2, "a rewritten capture is read again")
    ok(warm < cold, f"the cached call is faster ({warm * 1000:.0f} ms against {cold * 1000:.0f} ms)")
    ok(s.close() == 0, "the server ends with its input")

    # A 16 MiB cache over 14 captures of about 1.3 MiB each: the least
    # recently used are dropped. The oracle replays the calls on an LRU of
    # the sizes the log gives.
    many = os.path.join(root, "many")
    os.makedirs(many)
    paths = []
    for seed in range(1, 15):
        p = os.path.join(many, f"seed-{seed}.json")
        subprocess.run([CP_GEN, "--scenario", "input-bound", "--seed", str(seed), "-o", p, "-q"], check=True)
        paths.append(p)
    s = Session("--root", root, "--memory-limit", "16", env=env)
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "test-mcp", "version": "1"}})
    calls = paths + [paths[-1], paths[-2], paths[0]]
    for p in calls:
        s.tool("capture_summary", path=p) if p is calls[0] else s.call("capture_summary", path=p)
    ok(s.close() == 0, "the server ends with its input")
    log = s.stderr().splitlines()
    sizes = {}
    for line in log:
        if " loaded " in line and " MiB in memory" in line:
            name = line.split(" loaded ", 1)[1].rsplit(" (", 1)[0]
            sizes[name] = float(line.rsplit(" (", 1)[1].split()[0])
    lru, used, loads, drops = [], 0.0, 0, 0
    for p in calls:
        if p in lru:
            lru.remove(p)
            lru.insert(0, p)
            continue
        lru.insert(0, p)
        used += sizes[p]
        loads += 1
        while used > 16 and len(lru) > 1:
            used -= sizes[lru.pop()]
            drops += 1
    ok(drops > 0, f"the LRU model drops {drops} captures")
    ok(sum(" loaded " in line for line in log) == loads, f"the server read {loads} captures, as an LRU of 16 MiB does")
    ok(sum(" dropped " in line for line in log) == drops, f"and dropped {drops}")
    ok(sum(f"loaded {paths[0]} " in line for line in log) == 2, "the first capture, dropped, was read again")
    ok(sum(f"loaded {paths[-1]} " in line for line in log) == 1, "the most recent ones were not")
    ok(cli("mcp", "--memory-limit", "1")[0] == 2 and cli("mcp", "--root", os.path.join(tmp, "nope"))[0] == 2 and
       cli("mcp", "stray")[0] == 2, "bad options are usage errors")

    # Cancellation (notifications/cancelled): the request being handled
    # stops and gets no reply; a queued one is dropped before it runs; the
    # server goes on answering, and the capture reads whole later.
    big = os.path.join(root, "big")
    os.makedirs(big)
    big_a, big_b = os.path.join(big, "a.json"), os.path.join(big, "b.json")
    for p, seed in ((big_a, "1"), (big_b, "2")):
        subprocess.run([CP_GEN, "--scenario", "healthy", "--size", "120M", "--seed", seed, "-o", p, "-q"], check=True)
    s = Session("--root", root, env=env)
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "test-mcp", "version": "1"}})
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    t0 = time.monotonic()
    s.send_raw(json.dumps({**call, "id": 20, "params": {"name": "diagnose", "arguments": {"path": big_a}}}))
    s.send_raw(json.dumps({**call, "id": "twenty-one", "params": {"name": "diagnose", "arguments": {"path": big_b}}}))
    # Cancelled once it is being read (the log says so), not before.
    deadline = time.monotonic() + 60
    while f"reading {big_a}" not in s.stderr() and time.monotonic() < deadline:
        time.sleep(0.005)
    s.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": "twenty-one", "reason": "test"}}))
    s.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 20}}))
    first = s.raw(json.dumps({"jsonrpc": "2.0", "id": 22, "method": "ping"}))
    answered = time.monotonic() - t0
    ok(first == {"jsonrpc": "2.0", "id": 22, "result": {}}, f"after two cancellations the next reply is the ping's: {first}")
    log = s.stderr()
    ok("request 20 was cancelled; no reply" in log, "the running request was cancelled")
    ok("request \"twenty-one\" was cancelled before it ran" in log, "the queued one never ran")
    ok(f"loaded {big_b}" not in log, "the queued capture was not read")
    t0 = time.monotonic()
    whole = s.tool("diagnose", path=big_a)
    full = time.monotonic() - t0
    ok(timeless(whole) == timeless(cli_json("diagnose", "--json", big_a)),
       "the cancelled capture reads whole afterwards: diagnose = diagnose --json")
    ok(answered < full, f"the cancelled call stopped early ({answered:.2f} s against {full:.2f} s for the whole call)")
    ok(s.close() == 0, "the server ends with its input")


if __name__ == "__main__":
    main()
