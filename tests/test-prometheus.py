#!/usr/bin/env python3
# test-prometheus.py: the alerting rules against a real Prometheus and
# Pushgateway on loopback (TAP)
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Debian's prometheus and prometheus-pushgateway are started here, in a
# temporary folder, on free loopback ports. Two generated captures (cp-gen's
# input-bound and healthy scenarios) are diagnosed with --format openmetrics
# and pushed; Prometheus scrapes the Pushgateway every second, loads
# data/prometheus/chokepoint-alerts.yml and evaluates it every second. Its
# HTTP API must then show ChokepointInputBound firing for the input-bound
# capture and never for the healthy one. Both servers are stopped at the
# end, whatever happens. Skips when the packages are not installed.

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SOURCE = os.environ.get("CP_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
RULES = os.path.join(SOURCE, "data", "prometheus", "chokepoint-alerts.yml")
n_test = 0


def ok(cond, what):
    global n_test
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}", flush=True)
    if not cond:
        raise SystemExit(1)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def wait_ready(url, proc, what, limit=60):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            status, _ = get(url, timeout=2)
            if status == 200:
                return True
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.2)
    return False


def push(gateway, capture, text):
    req = urllib.request.Request(f"http://127.0.0.1:{gateway}/metrics/job/chokepoint/capture/{capture}",
                                 data=text.encode(), method="PUT",
                                 headers={"Content-Type": "text/plain; version=0.0.4"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def alerts(prom):
    _, body = get(f"http://127.0.0.1:{prom}/api/v1/alerts")
    return json.loads(body)["data"]["alerts"]


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main():
    prometheus = shutil.which("prometheus")
    gateway_exe = shutil.which("prometheus-pushgateway") or shutil.which("pushgateway")
    promtool = shutil.which("promtool")
    if prometheus is None or gateway_exe is None or promtool is None:
        print("1..0 # SKIP prometheus and prometheus-pushgateway are not installed "
              "(apt-get install prometheus prometheus-pushgateway)")
        return 0
    chokepoint = os.environ["CP_CHOKEPOINT"]
    gen = os.environ["CP_GEN"]
    print("1..6", flush=True)

    check = subprocess.run([promtool, "check", "rules", RULES], capture_output=True, text=True)
    ok(check.returncode == 0, f"promtool check rules: {check.stdout.strip().splitlines()[-1:]}")

    tmp = tempfile.mkdtemp(prefix="chokepoint-prometheus-")
    procs = []
    try:
        texts = {}
        for scenario in ("input-bound", "healthy"):
            capture = os.path.join(tmp, scenario + ".json")
            subprocess.run([gen, "--scenario", scenario, "--out", capture, "--steps", "4", "-q"], check=True)
            out = subprocess.run([chokepoint, "diagnose", "--format", "openmetrics", "--label", "model=vit",
                                  capture], capture_output=True, text=True, check=True).stdout
            texts[scenario] = out
        ok(all(t.endswith("# EOF\n") and "chokepoint_input_share_ratio" in t for t in texts.values()),
           "diagnose --format openmetrics gives both captures' input share")

        gw_port, prom_port = free_port(), free_port()
        config = os.path.join(tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {RULES}
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:{gw_port}"]
""")
        log_gw = open(os.path.join(tmp, "pushgateway.log"), "w")
        log_prom = open(os.path.join(tmp, "prometheus.log"), "w")
        gw = subprocess.Popen([gateway_exe, f"--web.listen-address=127.0.0.1:{gw_port}"],
                              stdout=log_gw, stderr=subprocess.STDOUT)
        procs.append(gw)
        prom = subprocess.Popen([prometheus, f"--config.file={config}",
                                 f"--storage.tsdb.path={os.path.join(tmp, 'data')}",
                                 f"--web.listen-address=127.0.0.1:{prom_port}"],
                                stdout=log_prom, stderr=subprocess.STDOUT)
        procs.append(prom)
        ready = wait_ready(f"http://127.0.0.1:{gw_port}/-/ready", gw, "pushgateway") and \
            wait_ready(f"http://127.0.0.1:{prom_port}/-/ready", prom, "prometheus")
        if not ready:
            log_prom.flush()
            with open(os.path.join(tmp, "prometheus.log")) as f:
                sys.stderr.write(f.read()[-3000:])
        ok(ready, f"Pushgateway on :{gw_port} and Prometheus on :{prom_port} are ready")

        statuses = [push(gw_port, name, text) for name, text in texts.items()]
        ok(all(s in (200, 202) for s in statuses), f"both captures pushed ({statuses})")

        # Wait for the input-bound capture's alert to fire.
        firing, seen = None, []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and firing is None:
            for a in alerts(prom_port):
                if a["labels"].get("alertname") == "ChokepointInputBound":
                    seen.append((a["labels"].get("capture"), a["state"]))
                    if a["labels"].get("capture") == "input-bound" and a["state"] == "firing":
                        firing = a
            time.sleep(0.5)
        ok(firing is not None and firing["labels"].get("model") == "vit",
           f"ChokepointInputBound fires for the input-bound capture (value {firing and firing['value']})")
        ok(all(capture != "healthy" for capture, _ in seen),
           "ChokepointInputBound never fires, or is pending, for the healthy capture")
    finally:
        for p in procs:
            stop(p)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
