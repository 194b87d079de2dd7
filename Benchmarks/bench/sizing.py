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
import os
import subprocess
import sys
import time

from hub_process import RELEASE_BINARY, ROOT, HubProcess, free_port, in_threads, wait_for_port


def open_session(connection, kind):
    """One session of `kind` on a keep-alive connection."""
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
        raise RuntimeError(f"{kind}: status {response.status}")


def open_sessions(port, kind, count, threads=8):
    """Opens `count` sessions of `kind` over `threads` keep-alive connections."""
    in_threads(port, lambda connection, _: open_session(connection, kind), range(count), threads)


def measure(binary, kind, steps):
    upstream, features = None, {}
    if kind == "remote":
        upstream_port = free_port()
        upstream = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "system", "deploy", "counter_upstream.py"),
                                     str(upstream_port), "--max-seconds", "900"])
        wait_for_port(upstream_port)
        features["counter"] = {"id": "counter", "title": "Counter", "match": {"uri": "hub:counter"},
                               "operations": [{"kind": "remote", "url": f"http://127.0.0.1:{upstream_port}/count/{{session}}"}]}
    hub = None
    try:
        # Every session here comes from one client, 127.0.0.1: the per-client limit is out of the way.
        settings = {"sessions": {"max": 200000}, "log": {"level": "warning"},
                    "limits": {"sessionsPerClient": {"perSecond": 1000000, "burst": 1000000}}}
        hub = HubProcess(binary, settings, features, prefix="hub-sizing-")
        # Warm up every code path once (and the memo for the home view), then settle.
        open_sessions(hub.port, kind, 8, threads=1)
        time.sleep(1)
        base_sessions, base_rss = hub.sessions(), hub.rss() // 1024
        print(f"{kind}: {base_sessions:>7} sessions  RSS {base_rss / 1024:7.1f} MiB")
        opened = 0
        points = [(base_sessions, base_rss)]
        for step in steps:
            open_sessions(hub.port, kind, step - opened)
            opened = step
            time.sleep(1)
            sessions, rss = hub.sessions(), hub.rss() // 1024
            points.append((sessions, rss))
            print(f"{kind}: {sessions:>7} sessions  RSS {rss / 1024:7.1f} MiB")
        (s0, r0), (s1, r1) = points[0], points[-1]
        per = (r1 - r0) * 1024 / max(1, s1 - s0)
        print(f"{kind}: {per:,.0f} bytes of RSS per session ({s1 - s0} sessions, +{(r1 - r0) / 1024:.1f} MiB)")
        return per
    finally:
        if hub is not None:
            hub.stop()
        if upstream is not None:
            upstream.terminate()
            upstream.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=RELEASE_BINARY)
    parser.add_argument("--steps", default="10000,100000")
    parser.add_argument("--kinds", default="stored,remote,used")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    for kind in args.kinds.split(","):
        measure(args.binary, kind, steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
