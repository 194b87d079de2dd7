#!/usr/bin/env python3
"""Memory per session, for sizing replicas (docs/DEPLOYMENT.md "Sizing"): starts the release
hub-server with the demo Config/ on a free loopback port, opens sessions through HTTP and
reads the process's resident memory (VmRSS) at each step.

  Benchmarks/bench/sizing.py [--binary .build/release/hub-server] [--steps 10000,100000]

Two kinds of session, each in a fresh server:
  stored   GET /view?uri=hub:todo: a Swift operation, never memoized: every open stores a
           session with its own snapshots and view model (the costly kind);
  remote   GET /view?uri=hub:counter: a remote operation whose upstream answers no-store
           (Tests/system/deploy/counter_upstream.py, state keyed by the session id): stored, not
           memoized, like `stored` but without a Swift store;
  used     GET /view?uri=hub:home, then GET /view?session=<token>: a memoized view whose
           lazy token is used once: the stored session shares the memo's snapshots and model.
Prints one line per step and the bytes per session between the first and the last step.
Loopback only; bounded by the step counts (about a minute for 100 000 on two cores).
"""
import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def health_sessions(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/health")
    body = connection.getresponse().read().decode()
    connection.close()
    import json
    return json.loads(body)["sessions"]


def open_sessions(port, kind, count, threads=8):
    """Opens `count` sessions of `kind` over `threads` keep-alive connections."""
    per_thread = [count // threads + (1 if i < count % threads else 0) for i in range(threads)]
    errors = []

    def worker(n):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            for _ in range(n):
                if kind in ("stored", "remote"):
                    connection.request("GET", "/view?uri=hub:todo" if kind == "stored" else "/view?uri=hub:counter")
                    response = connection.getresponse()
                    response.read()
                else:
                    connection.request("GET", "/view?uri=hub:home")
                    response = connection.getresponse()
                    response.read()
                    token = response.getheader("Hub-Session")
                    connection.request("GET", "/view?session=" + token)
                    response = connection.getresponse()
                    response.read()
                if response.status != 200:
                    errors.append(response.status)
                    return
        except (OSError, http.client.HTTPException) as error:
            errors.append(repr(error))
        finally:
            connection.close()

    pool = [threading.Thread(target=worker, args=(n,)) for n in per_thread]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise RuntimeError(f"errors while opening sessions: {errors[:3]}")


def measure(binary, kind, steps):
    port = free_port()
    config = tempfile.mkdtemp(prefix="hub-sizing-")
    subprocess.check_call(["cp", "-r", os.path.join(ROOT, "Config", "."), config])
    with open(os.path.join(config, "server.json"), "w") as handle:
        handle.write('{ "host": "127.0.0.1", "port": %d, "sessions": { "max": 200000 }, '
                     '"log": { "level": "warning" } }\n' % port)
    upstream = None
    if kind == "remote":
        upstream_port = free_port()
        upstream = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "system", "deploy", "counter_upstream.py"),
                                     str(upstream_port), "--max-seconds", "900"])
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", upstream_port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the counter upstream did not start")
                time.sleep(0.1)
        with open(os.path.join(config, "features", "counter.json"), "w") as handle:
            handle.write('{ "id": "counter", "title": "Counter", "match": { "uri": "hub:counter" }, "operations": '
                         '[ { "kind": "remote", "url": "http://127.0.0.1:%d/count/{session}" } ] }\n' % upstream_port)
    log = open(os.path.join(config, "server.log"), "w")
    server = subprocess.Popen([binary, "serve", "--config", config], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health_sessions(port)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("hub-server did not start")
                time.sleep(0.1)
        # Warm up every code path once (and the memo for the home view), then settle.
        open_sessions(port, kind, 8, threads=1)
        time.sleep(1)
        base_sessions, base_rss = health_sessions(port), rss_kib(server.pid)
        print(f"{kind}: {base_sessions:>7} sessions  RSS {base_rss / 1024:7.1f} MiB")
        opened = 0
        points = [(base_sessions, base_rss)]
        for step in steps:
            open_sessions(port, kind, step - opened)
            opened = step
            time.sleep(1)
            sessions, rss = health_sessions(port), rss_kib(server.pid)
            points.append((sessions, rss))
            print(f"{kind}: {sessions:>7} sessions  RSS {rss / 1024:7.1f} MiB")
        (s0, r0), (s1, r1) = points[0], points[-1]
        per = (r1 - r0) * 1024 / max(1, s1 - s0)
        print(f"{kind}: {per:,.0f} bytes of RSS per session ({s1 - s0} sessions, +{(r1 - r0) / 1024:.1f} MiB)")
        return per
    finally:
        server.terminate()
        server.wait(timeout=60)
        if upstream is not None:
            upstream.terminate()
            upstream.wait(timeout=60)
        log.close()
        subprocess.call(["rm", "-rf", config])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "hub-server"))
    parser.add_argument("--steps", default="10000,100000")
    parser.add_argument("--kinds", default="stored,remote,used")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    for kind in args.kinds.split(","):
        measure(args.binary, kind, steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
