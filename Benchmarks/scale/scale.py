#!/usr/bin/env python3
"""Scale with connections and listeners (docs/PERFORMANCE.md "Scale: connections and listeners").

Drives a running hub-server (started by scale.sh with the bench's server.json) from 127.0.0.1:

1. `GET /view?uri=hub:home` throughput with wrk (-t2 -c32) on this server and on a second one
   (the same binary and config, which never holds anything), in alternating rounds (medians),
   before anything is held: the control ratio.
2. IDLE keep-alive connections (one `GET /health` each, then silent), held by a child process
   (one process cannot hold 20,000 descriptors under this machine's hard limit): RSS per connection.
3. LISTENERS sessions of hub:home (each used once, so stored), then one SSE listener on each,
   each waited for until its first view: RSS per session, per listener.
4. throughput again beside them, alternating with the bare server; then an action to the pushed view on a listener of its own
   (ACTIONS actions, each timed from the request's start to the event on the listener).
5. fan-out by config edit: content/home.json rewritten (a new title) and timed from the rename
   to each listener's event carrying it; by action: the listeners closed, LISTENERS listeners
   on one todo session, one `todo:add`, timed to each listener's event.
Prints a Markdown summary.

Every phase has a deadline; the client is single-threaded (selectors/epoll), so its own time
to read 10,000 sockets is inside the fan-out figures (an upper bound for the server's).
"""
import argparse
import http.client
import json
import os
import re
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import time

HOST = "127.0.0.1"


def log(text):
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {text}", file=sys.stderr, flush=True)


def raise_nofile():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def settle_rss(pid, seconds=1.0):
    """RSS after a short pause (allocator and kernel settle; bounded)."""
    time.sleep(seconds)
    return rss_kib(pid)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def summary(values):
    return (f"p50 {percentile(values, 0.5):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, "
            f"max {max(values):.1f} ms")


class Client:
    """One keep-alive connection for the setup requests."""

    def __init__(self, port):
        self.port = port
        self.connection = http.client.HTTPConnection(HOST, port, timeout=30)

    def request(self, method, target, body=None, headers=None):
        self.connection.request(method, target, body, headers or {})
        response = self.connection.getresponse()
        data = response.read()
        return response, data

    def token(self, uri):
        response, _ = self.request("GET", f"/view?uri={uri}")
        assert response.status == 200, response.status
        token = response.getheader("Hub-Session")
        # A memoized view's token is lazy: its first use stores the session.
        response, _ = self.request("GET", f"/view?session={token}")
        assert response.status == 200, response.status
        return token

    def act(self, token, fields):
        body = json.dumps(dict(session=token, **fields))
        response, data = self.request("POST", "/action", body, {"Content-Type": "application/json"})
        answer = json.loads(data)
        assert response.status == 200 and answer["performed"], (response.status, answer)
        return answer["view"]


def wrk_once(url, seconds):
    output = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url],
                            capture_output=True, text=True, timeout=seconds + 60).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        raise RuntimeError(f"wrk saw {errors.group(1)} non-2xx answers")
    return rate, float(p99.group(1)) * scale


def wrk_pair(url, bare_url, seconds, rounds):
    """Alternating rounds on `url` and `bare_url` (the machine's noise falls on both): the
    medians of each, (rate, p99 ms)."""
    held, bare = [], []
    for _ in range(rounds):
        held.append(wrk_once(url, seconds))
        bare.append(wrk_once(bare_url, seconds))
    median = lambda figures: (statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures))
    return median(held), median(bare)


class Listeners:
    """Many SSE streams on one selector, read without parsing: an event is found by a needle."""

    def __init__(self, port):
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.sockets = []

    def open(self, targets, first_needle, deadline_seconds):
        """Opens one stream per target, in batches, and waits for each first event."""
        pending = {}
        started = time.monotonic()
        for index, target in enumerate(targets):
            sock = socket.create_connection((HOST, self.port), timeout=10)
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
            sock.setblocking(False)
            self.sockets.append(sock)
            self.selector.register(sock, selectors.EVENT_READ, len(self.sockets) - 1)
            pending[len(self.sockets) - 1] = b""
            if index % 500 == 499:
                self._collect(pending, first_needle, started + deadline_seconds, until=len(pending) // 2)
        self._collect(pending, first_needle, started + deadline_seconds, until=0)
        if pending:
            raise RuntimeError(f"{len(pending)} listeners got no first event within {deadline_seconds} s")
        self.drain()

    def _collect(self, pending, needle, deadline, until, seen_at=None):
        """Reads until at most `until` of `pending` (index -> the tail read so far) still wait for
        `needle`, or `deadline`; `seen_at(index)` is told as each one arrives."""
        while len(pending) > until and time.monotonic() < deadline:
            for key, _ in self.selector.select(timeout=1):
                index = key.data
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    raise RuntimeError(f"listener {index} closed by the server")
                if index in pending:
                    seen = pending[index] + data
                    if needle in seen:
                        del pending[index]
                        if seen_at:
                            seen_at(index)
                    else:
                        pending[index] = seen[-len(needle):]

    def drain(self):
        """Reads whatever waits (heartbeats, earlier events)."""
        while True:
            ready = self.selector.select(timeout=0.05)
            if not ready:
                return
            for key, _ in ready:
                try:
                    if not key.fileobj.recv(65536):
                        raise RuntimeError(f"listener {key.data} closed by the server")
                except BlockingIOError:
                    pass

    def time_event(self, needle, started, deadline_seconds):
        """Milliseconds from `started` to each listener's first bytes carrying `needle`."""
        pending = {index: b"" for index in range(len(self.sockets))}
        latencies = []
        self._collect(pending, needle, started + deadline_seconds, until=0,
                      seen_at=lambda _: latencies.append((time.monotonic() - started) * 1000))
        return latencies, len(pending)

    def close(self):
        for sock in self.sockets:
            self.selector.unregister(sock)
            sock.close()
        self.sockets = []


def hold_idle(port, count):
    """The child process: COUNT keep-alive connections, each after one answered `GET /health`."""
    raise_nofile()
    sockets = []
    for index in range(count):
        sock = socket.create_connection((HOST, port), timeout=30)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: bench\r\n\r\n")
        sockets.append(sock)
        if index % 200 == 199 or index == count - 1:
            for pending in sockets[-(index % 200 + 1):]:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = pending.recv(65536)
                    if not chunk:
                        raise RuntimeError("an idle connection was closed during setup")
                    head += chunk
    print("ready", flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    for sock in sockets:
        sock.close()


def action_latency(port, count, deadline_seconds=60):
    """COUNT todo actions on a session with one listener: request start to the listener's event."""
    client = Client(port)
    token = client.token("hub:todo")
    sock = socket.create_connection((HOST, port), timeout=10)
    sock.sendall(f"GET /view/events?session={token} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    marker = b"event: view\n"
    buffer = b""
    seen = 0

    def wait_events(target, deadline):
        nonlocal buffer, seen
        while seen < target:
            if time.monotonic() > deadline:
                raise RuntimeError("the listener missed an action's event")
            chunk = sock.recv(65536)
            if not chunk:
                raise RuntimeError("listener closed")
            buffer += chunk
            seen += buffer.count(marker)
            buffer = buffer[-(len(marker) - 1):]
        return time.monotonic()

    wait_events(1, time.monotonic() + deadline_seconds)
    latencies = []
    added = None
    for index in range(count):
        started = time.monotonic()
        if added is None:
            view = client.act(token, {"action": "todo:add", "custom": {"title": f"act{index}"}})
            added = view["body"][-1]["id"]
        else:
            client.act(token, {"action": "todo:delete", "custom": {"id": added}})
            added = None
        arrived = wait_events(seen + 1, started + 10)
        latencies.append((arrived - started) * 1000)
    sock.close()
    return latencies


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--bare-port", type=int, required=True, help="a second hub-server that never holds anything")
    parser.add_argument("--config", required=True, help="the served config directory (content/home.json is edited)")
    parser.add_argument("--listeners", type=int, default=10000)
    parser.add_argument("--idle", type=int, default=10000)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--per-session", type=int, default=0,
                        help="listeners on the one todo session (default: --listeners; limits.sseListenersPerSession)")
    parser.add_argument("--wrk-seconds", type=int, default=3)
    parser.add_argument("--wrk-rounds", type=int, default=5)
    arguments = parser.parse_args()
    raise_nofile()
    port, pid = arguments.port, arguments.pid
    view_url = f"http://{HOST}:{port}/view?uri=hub:home"
    bare_url = f"http://{HOST}:{arguments.bare_port}/view?uri=hub:home"
    results = {}

    log("throughput before anything is held (control: both servers bare)")
    Client(port).request("GET", "/view?uri=hub:home")
    Client(arguments.bare_port).request("GET", "/view?uri=hub:home")
    results["wrk_before"] = wrk_pair(view_url, bare_url, arguments.wrk_seconds, arguments.wrk_rounds)
    rss_start = settle_rss(pid)

    log(f"{arguments.idle} idle keep-alive connections")
    holder = subprocess.Popen([sys.executable, __file__, "--hold-idle", str(arguments.idle), "--port", str(port)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if holder.stdout.readline().strip() != "ready":
            raise RuntimeError("the idle connections' holder failed")
        rss_idle = settle_rss(pid)

        log(f"{arguments.listeners} sessions of hub:home")
        client = Client(port)
        tokens = [client.token("hub:home") for _ in range(arguments.listeners)]
        client.connection.close()
        rss_sessions = settle_rss(pid)

        log(f"{arguments.listeners} listeners, one per session")
        listeners = Listeners(port)
        listeners.open([f"/view/events?session={t}" for t in tokens], b"Recently played", 120)
        rss_listeners = settle_rss(pid)

        log("throughput beside them, alternating with the bare server")
        results["wrk_held"] = wrk_pair(view_url, bare_url, arguments.wrk_seconds, arguments.wrk_rounds)

        log(f"{arguments.actions} actions, each to the pushed view on its own listener")
        results["action"] = action_latency(port, arguments.actions)

        log("fan-out: one config edit")
        listeners.drain()
        # The home view's English strings are in the catalog (Config/strings/en.json).
        home = os.path.join(arguments.config, "strings", "en.json")
        original = open(home).read()
        title = "Edited for the fan-out"
        with open(home + ".tmp~", "w") as file:
            file.write(original.replace("Recently played", title))
        started = time.monotonic()
        os.rename(home + ".tmp~", home)
        results["edit"] = listeners.time_event(title.encode(), started, 60)
        listeners.close()

        shared = arguments.per_session or arguments.listeners
        log(f"fan-out: one action, {shared} listeners on one todo session")
        client = Client(port)
        todo = client.token("hub:todo")
        listeners = Listeners(port)
        listeners.open([f"/view/events?session={todo}"] * shared, b"event: view", 120)
        listeners.drain()
        started = time.monotonic()
        client.act(todo, {"action": "todo:add", "custom": {"title": "Fanned out"}})
        results["action_fanout"] = listeners.time_event(b"Fanned out", started, 60)
        listeners.close()
        client.connection.close()
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)

    idle, listened = arguments.idle, arguments.listeners
    per_connection = (rss_idle - rss_start) * 1024 / idle
    per_session = (rss_sessions - rss_idle) * 1024 / listened
    per_listener = (rss_listeners - rss_sessions) * 1024 / listened
    shared = arguments.per_session or listened
    print(f"\nRSS: start {rss_start} KiB, +{idle} idle connections {rss_idle} KiB, +{listened} sessions "
          f"{rss_sessions} KiB, +{listened} listeners {rss_listeners} KiB\n")
    print("| figure | value |\n|---|---|")
    print(f"| memory per idle keep-alive connection | {per_connection / 1024:.2f} KiB |")
    print(f"| memory per stored session of hub:home (used once) | {per_session / 1024:.2f} KiB |")
    print(f"| memory per SSE listener, its own session (connection included) | {per_listener / 1024:.2f} KiB |")
    for name, label in (("wrk_before", "nothing held (control)"),
                        ("wrk_held", f"beside {idle} idle connections + {listened} listeners")):
        (rate, p99), (bare_rate, bare_p99) = results[name]
        print(f"| `GET /view?uri=hub:home` wrk -t2 -c32, {label} | {rate:,.0f} req/s (p99 {p99:.2f} ms); "
              f"bare server in the same rounds {bare_rate:,.0f} req/s (p99 {bare_p99:.2f} ms): "
              f"**{rate / bare_rate:.2f}x** |")
    for name, label in (("edit", f"config edit to {listened} listeners (own sessions)"),
                        ("action_fanout", f"action to {shared} listeners of one session")):
        latencies, missed = results[name]
        reached = f"{len(latencies)} reached, {missed} missed"
        print(f"| fan-out: {label} | {summary(latencies) if latencies else 'none'} ({reached}) |")
    print(f"| action to the pushed view on its own listener ({len(results['action'])} actions) | "
          f"{summary(results['action'])} |")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--hold-idle":
        hold_idle(int(sys.argv[4]), int(sys.argv[2]))
    else:
        main()
