#!/usr/bin/env python3
# test-mcp-sdk.py: `chokepoint mcp` driven by the official MCP client (TAP)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs tests/mcp-sdk-client.mjs, which connects the MCP TypeScript SDK's
# Client (npm's @modelcontextprotocol/sdk, version 1) to the server over
# stdio; the SDK validates each reply against its schemas of the protocol.
# The SDK is installed once with npm into the build folder
# (tests/mcp-sdk). Skips when node or npm is missing or the package cannot
# be installed (no network). Oracles: cp-gen's --summary and
# `chokepoint info --json`.

import json
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.environ.get("CP_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.environ.get("CP_BUILD_ROOT", os.path.join(SOURCE, "build"))
CHOKEPOINT = os.environ.get("CP_CHOKEPOINT", "chokepoint")
CP_GEN = os.environ.get("CP_GEN", "cp-gen")
PACKAGE = "@modelcontextprotocol/sdk@1"
n_test = 0


def ok(cond, what):
    global n_test
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}", flush=True)
    if not cond:
        raise SystemExit(1)


def skip_all(why):
    print(f"1..0 # SKIP {why}", flush=True)
    raise SystemExit(0)


def install_sdk():
    if shutil.which("node") is None or shutil.which("npm") is None:
        skip_all("node and npm are not installed")
    prefix = os.path.join(BUILD, "tests", "mcp-sdk")
    if not os.path.isdir(os.path.join(prefix, "node_modules", "@modelcontextprotocol", "sdk")):
        os.makedirs(prefix, exist_ok=True)
        try:
            r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, PACKAGE],
                               capture_output=True, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            skip_all(f"npm install {PACKAGE} took more than 4 minutes")
        if r.returncode != 0:
            skip_all(f"npm install {PACKAGE} failed: {r.stderr.strip().splitlines()[-1:]}")
    # Node resolves the package from the script's folder.
    shutil.copy(os.path.join(SOURCE, "tests", "mcp-sdk-client.mjs"), prefix)
    return os.path.join(prefix, "mcp-sdk-client.mjs")


def timeless(node):
    if isinstance(node, dict):
        return {k: timeless(v) for k, v in node.items() if not k.endswith("seconds")}
    if isinstance(node, list):
        return [timeless(v) for v in node]
    return node


def main():
    client = install_sdk()
    print("TAP version 13", flush=True)
    tmp = tempfile.mkdtemp(prefix="cp-test-mcp-sdk-")
    try:
        capture = os.path.join(tmp, "healthy.json")
        subprocess.run([CP_GEN, "--scenario", "healthy", "-o", capture, "--summary", capture + ".summary", "-q"],
                       check=True)
        with open(capture + ".summary") as f:
            summary = json.load(f)
        r = subprocess.run(["node", client, CHOKEPOINT, tmp, capture], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
        ok(r.returncode == 0, "the SDK client connects, lists the tools and calls them")
        got = json.loads(r.stdout)
        ok(got["server"]["name"] == "chokepoint", "the SDK read initialize's serverInfo")
        ok(len(got["tools"]) == 10 and "diagnose" in got["tools"], "the SDK took the 10 tools and their schemas")
        ok(got["summary_is_error"] is False and got["summary"]["slices"] == summary["slices"],
           f"capture_summary through the SDK: {summary['slices']} slices (cp-gen --summary)")
        info = json.loads(subprocess.run([CHOKEPOINT, "info", "--json", capture], capture_output=True, text=True,
                                         check=True).stdout)
        # JavaScript numbers hold 53 bits: origin_ns (ns since the epoch)
        # comes back rounded, and is left out.
        ok(timeless({k: v for k, v in got["summary"].items() if k != "origin_ns"}) ==
           timeless({k: v for k, v in info.items() if k != "origin_ns"}), "… the JSON of info --json")
        ok(len(got["page"]["slices"]) == 3 and got["page"]["next_cursor"] == "3", "lane_slices pages through the SDK")
        ok(got["refused"]["isError"] is True and "outside" in got["refused"]["text"],
           "a path outside the root is a tool error the SDK hands on")
        ok(got["unknown_tool"] == -32602, "an unknown tool is JSON-RPC error -32602 in the SDK")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n_test}", flush=True)


if __name__ == "__main__":
    main()
