#!/usr/bin/env python3
"""Client loops for Tests/system/robustness/replicas.sh and rolling-restart.sh (stdlib, threads).

Each of --clients loops holds one session of hub:counter (Tests/system/lib.sh: the count
lives in counter_upstream.py, keyed by the session id) through the balancer on 127.0.0.1:
GET /view and POST /action {"action":"counter:add"} with the Hub-Session header, in turn, and
one event-stream listener (the query form, as EventSource) that reconnects with Last-Event-ID
whenever its stream ends. Every request is recorded with its start and end time, its status
or transport error, and the replica that answered (the balancer's X-Hub-Replica header).

  replicas_clients.py --balancer PORT --replicas P1,P2,P3 --clients 50 --until-file PATH
                      --max-seconds 120 [--kill-pid PID --kill-at SECONDS] --out RESULT.json

With --kill-pid, the process is SIGKILLed --kill-at seconds after the loops started (the time is
recorded), and each replica's hub_sessions_rebuilt_total is read directly just before the
kill and from every live replica at the end. The loops run until --until-file exists (or --max-seconds), then each client checks
that its stream converged: a final GET's ETag is the last event id its listener holds (within
30 s). Writes the raw records and per-client results as JSON for the calling script to judge.
"""
import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy"))
from hubclient import EventStream, count_of, event_id, request  # noqa: E402

T0 = time.monotonic()


def now():
    return round(time.monotonic() - T0, 4)


class Listener(threading.Thread):
    """The event stream of one session: reconnects with Last-Event-ID until stopped."""

    def __init__(self, port, token):
        super().__init__(daemon=True)
        self.port, self.token = port, token
        self.stop = threading.Event()
        self.last_id = None
        self.connects = []   # {t, status, replica, last_event_id_sent, first_event_id}
        self.events = 0
        self.lock = threading.Lock()
        self.stream = None

    def close(self):
        """Stops the listener: a blocked read ends when its socket is shut down (a read timeout
        would leave http.client's buffered reader in an undefined state)."""
        self.stop.set()
        with self.lock:
            stream = self.stream
        if stream is not None and stream.connection.sock is not None:
            try:
                stream.connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def run(self):
        path = "/view/events?session=" + urllib.parse.quote(self.token)
        while not self.stop.is_set():
            headers = {"Last-Event-ID": self.last_id} if self.last_id else {}
            entry = {"t": now(), "last_event_id_sent": self.last_id}
            try:
                stream = EventStream(self.port, path, headers=headers, timeout=10)
            except OSError as error:
                entry.update(status=None, error=repr(error))
                self.connects.append(entry)
                self.stop.wait(0.2)
                continue
            entry.update(status=stream.status, replica=stream.headers.get("x-hub-replica"))
            self.connects.append(entry)
            if stream.status != 200:
                stream.close()
                self.stop.wait(0.5)
                continue
            with self.lock:
                self.stream = stream
            if self.stop.is_set():
                break
            # Heartbeats come every 15 s: 40 s of silence is a dead stream (then reconnect).
            stream.set_timeout(40)
            while not self.stop.is_set():
                try:
                    event = stream.next_event()
                except OSError:
                    break
                if event is None:
                    break
                with self.lock:
                    self.last_id = event.get("id") or self.last_id
                    self.events += 1
                if event.get("event") != "rebuilt":  # the rebuild's flag (no id) precedes the first view
                    entry.setdefault("first_event_id", event.get("id"))
            entry["ended"] = now()
            with self.lock:
                self.stream = None
            stream.close()
            self.stop.wait(0.2)  # EventSource waits ~3 s; sooner here, to measure more

    def current(self):
        with self.lock:
            return self.last_id


class Client(threading.Thread):
    def __init__(self, index, port, stop, pace):
        super().__init__(daemon=True)
        self.index, self.port, self.stop, self.pace = index, port, stop, pace
        self.records = []
        self.violations = []
        self.token = None
        self.low = self.high = 0  # the count, known up to actions whose outcome is unknown
        self.listener = None
        self.converged = None

    def call(self, method, path, kind, headers=None, body=None):
        start = now()
        record = {"t0": start, "kind": kind}
        try:
            response = request(self.port, method, path, headers=headers, body=body, timeout=30)
            record.update(status=response.status, replica=response.replica)
            if not 200 <= response.status < 300:
                record["body"] = response.body[:300].decode("utf-8", "replace")
        except Exception as error:  # noqa: BLE001 (a transport failure of any kind is a result)
            response = None
            record.update(status=None, error=repr(error))
        record["t1"] = now()
        self.records.append(record)
        return response

    def run(self):
        while self.token is None and not self.stop.is_set():
            opened = self.call("GET", "/view?uri=hub:counter", "open")
            if opened is not None and opened.status == 200:
                self.token = opened.header("Hub-Session")
        if self.token is None:
            return
        self.listener = Listener(self.port, self.token)
        self.listener.start()
        header = {"Hub-Session": self.token}
        while not self.stop.is_set():
            view = self.call("GET", "/view", "get", headers=header)
            if view is not None and view.status == 200:
                self.observe(view, count_of(view.json()), after_action=False)
            action = self.call("POST", "/action", "action", headers=header, body={"action": "counter:add"})
            if action is not None and action.status == 200:
                self.observe(action, count_of(action.json()["view"]), after_action=True)
            else:
                self.high += 1  # performed or not: unknown
            self.stop.wait(self.pace)
        # Convergence: the stream holds the view a final GET answers.
        deadline = time.monotonic() + 30
        final = None
        while time.monotonic() < deadline:
            final = self.call("GET", "/view", "final", headers=header)
            if final is not None and final.status == 200 and self.listener.current() == event_id(final.header("ETag")):
                self.converged = now()
                break
            time.sleep(0.5)
        self.listener.close()

    def observe(self, response, count, after_action):
        if response.header("Hub-Session") != self.token:
            self.violations.append(f"token changed to {response.header('Hub-Session')}")
        low, high = (self.low + 1, self.high + 1) if after_action else (self.low, self.high)
        if count is None or not low <= count <= high:
            self.violations.append(f"count {count} outside [{low}, {high}] at {now()} (after_action={after_action})")
        if count is not None:
            self.low = self.high = count


def rebuilt(ports):
    """hub_sessions_rebuilt_total (all reasons) of each replica that answers, by port."""
    totals = {}
    for port in ports:
        try:
            text = request(port, "GET", "/metrics", timeout=10).body.decode()
        except OSError:
            continue
        totals[port] = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                           if line.startswith("hub_sessions_rebuilt_total{"))
    return totals


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicas", required=True, help="the replicas' ports, comma-separated (for /metrics)")
    parser.add_argument("--balancer", type=int, required=True)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--pace", type=float, default=0.1, help="seconds between a client's rounds")
    parser.add_argument("--until-file", required=True)
    parser.add_argument("--max-seconds", type=float, default=120)
    parser.add_argument("--kill-pid", type=int)
    parser.add_argument("--kill-at", type=float, default=10)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    stop = threading.Event()
    clients = [Client(i, args.balancer, stop, args.pace) for i in range(args.clients)]
    for client in clients:
        client.start()
    ports = [int(p) for p in args.replicas.split(",")]
    killed_at, rebuilt_before = None, None
    deadline = time.monotonic() + args.max_seconds
    while time.monotonic() < deadline and not os.path.exists(args.until_file):
        if args.kill_pid and killed_at is None and now() >= args.kill_at:
            rebuilt_before = rebuilt(ports)
            os.kill(args.kill_pid, signal.SIGKILL)
            killed_at = now()
        time.sleep(0.05)
    stop.set()
    for client in clients:
        client.join(timeout=60)
    result = {
        "killed_at": killed_at,
        "rebuilt_before_kill": rebuilt_before,
        "rebuilt_at_end": rebuilt(ports),
        "ended_at": now(),
        "clients": [{
            "token": c.token, "records": c.records, "violations": c.violations, "converged": c.converged,
            "connects": c.listener.connects if c.listener else [], "events": c.listener.events if c.listener else 0,
            "alive": c.is_alive(),
        } for c in clients],
    }
    with open(args.out, "w") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
