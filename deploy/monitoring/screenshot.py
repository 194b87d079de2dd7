#!/usr/bin/env python3
"""docs/monitoring.png: a few of the dashboard's queries in Prometheus's own graph page.

    screenshot.py --server .build/debug/hub-server [--seconds 420] [--output docs/monitoring.png]

Grafana is not installed here, so the picture is Prometheus's graph page (the Debian
`prometheus` binary, in the foreground on 127.0.0.1, a temporary config and storage directory)
scraping a demo hub-server on loopback every 2 s, with alerts.yaml loaded, after SECONDS of
bounded demo traffic (about 8 requests/s: views, actions, next pages, 404s, three event streams).
The queries are the dashboard's own (hubserver-dashboard.json), with `$job` and `$instance` set
to match everything. The graphs show the last 2 minutes, when every 5-minute rate has a full
window. Not part of make test (it takes 7 minutes and a browser).
"""
import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# (panel title, refId): the graphs, top to bottom.
QUERIES = [
    ("Requests by route", "A"),
    ("Request latency, user-facing routes", "C"),
    ("Live sessions and sessions.max", "A"),
    ("Open event streams and limits.sseStreams", "A"),
]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url, method="GET", body=None, headers=None, timeout=10):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def wait_ok(url, process, name, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:
            if get(url, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} did not answer {url}")


def dashboard_queries():
    with open(os.path.join(HERE, "hubserver-dashboard.json")) as handle:
        panels = {panel["title"]: panel for panel in json.load(handle)["panels"]}
    queries = []
    for title, ref in QUERIES:
        target = next(t for t in panels[title]["targets"] if t["refId"] == ref)
        queries.append(target["expr"].replace("$job", ".*").replace("$instance", ".*"))
    return queries


def traffic(base, seconds, stop):
    """About 8 requests/s for `seconds`, and three event streams held open meanwhile."""
    def session_of(uri):
        _, headers, _ = get(f"{base}/view?uri={uri}")
        return headers.get("Hub-Session")

    def listen(session):
        try:
            with urllib.request.urlopen(f"{base}/view/events?session={session}", timeout=seconds + 30) as stream:
                while not stop.is_set() and stream.readline():
                    pass
        except OSError:
            pass

    listeners = [threading.Thread(target=listen, args=(session_of("hub:todo"),), daemon=True) for _ in range(3)]
    for listener in listeners:
        listener.start()
    deadline, rng = time.monotonic() + seconds, random.Random(7)
    while time.monotonic() < deadline:
        pick = rng.random()
        if pick < 0.5:
            get(f"{base}/view?uri={rng.choice(['hub:home', 'hub:food', 'hub:todo'])}")
        elif pick < 0.65:
            session = session_of("hub:todo")
            body = json.dumps({"action": "todo:add", "custom": {"title": "monitoring"}}).encode()
            get(f"{base}/action", "POST", body, {"Hub-Session": session, "Content-Type": "application/json"})
        elif pick < 0.8:
            session = session_of("hub:catalog")
            get(f"{base}/view/next-page", "POST", b"{}", {"Hub-Session": session, "Content-Type": "application/json"})
        elif pick < 0.9:
            get(f"{base}/view?uri=hub:nope")
        else:
            get(f"{base}/features")
        time.sleep(0.12)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/debug/hub-server"))
    parser.add_argument("--seconds", type=int, default=420)
    parser.add_argument("--output", default=os.path.join(ROOT, "docs", "monitoring.png"))
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    work = tempfile.mkdtemp(prefix="hub-monitoring-shot-")
    hub_port, prometheus_port = free_port(), free_port()
    hub_base, prometheus_base = f"http://127.0.0.1:{hub_port}", f"http://127.0.0.1:{prometheus_port}"
    config = os.path.join(work, "prometheus.yml")
    with open(config, "w") as handle:
        handle.write(f"""global:
  scrape_interval: 2s
  evaluation_interval: 5s
rule_files:
  - {os.path.join(HERE, "alerts.yaml")}
scrape_configs:
  - job_name: hubserver
    static_configs:
      - targets: ["127.0.0.1:{hub_port}"]
""")
    hub_env = dict(os.environ, HUB_CONFIG=os.path.join(ROOT, "Config"), HUB_HOST="127.0.0.1", HUB_PORT=str(hub_port),
                   HUB_LOG_LEVEL="error")
    log = open(os.path.join(work, "processes.log"), "w")
    hub = subprocess.Popen([args.server, "serve"], env=hub_env, stdout=log, stderr=log)
    prometheus = subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(work, 'data')}",
         f"--web.listen-address=127.0.0.1:{prometheus_port}"], stdout=log, stderr=log)
    stop, driver = threading.Event(), None
    try:
        wait_ok(hub_base + "/ready", hub, "hub-server")
        wait_ok(prometheus_base + "/-/ready", prometheus, "prometheus")
        print(f"traffic for {args.seconds} s (hub-server {hub_base}, prometheus {prometheus_base})")
        traffic(hub_base, args.seconds, stop)
        time.sleep(3)  # the last scrape

        params = {}
        for number, expr in enumerate(dashboard_queries()):
            params.update({f"g{number}.expr": expr, f"g{number}.tab": "0", f"g{number}.range_input": "2m",
                           f"g{number}.stacked": "0"})
        options = Options()
        options.binary_location = args.chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking", "--window-size=1200,1000",
                     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]:
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
        driver.get(f"{prometheus_base}/graph?{urllib.parse.urlencode(params)}")
        time.sleep(5)  # the graphs draw after their queries return
        driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1200, height + 140)  # the whole page, no scrollbar
        time.sleep(2)
        driver.save_screenshot(args.output)
        print(f"saved {args.output} ({os.path.getsize(args.output) // 1024} KB); log: {log.name}")
        return 0
    finally:
        stop.set()
        if driver:
            driver.quit()
        for process in (prometheus, hub):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    sys.exit(main())
