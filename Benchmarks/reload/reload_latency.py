#!/usr/bin/env python3
"""Config hot reload latency: a file write in the config directory to the SSE event on a live
session (docs/PERFORMANCE.md "Config hot reload").

Starts `hub-server serve` (release build) on a temporary copy of Config/ on 127.0.0.1, opens
--sessions live sessions of hub:home (used once, so they are stored), follows the first one
over SSE, then --rounds times: rewrites content/home.json with a new title (temporary file
renamed over the original, as editors save) and times until the listener's event carries it.
Prints p50, p90, p99 and max in milliseconds. Loopback only, bounded by --rounds.

    python3 Benchmarks/reload/reload_latency.py --server .build/release/hub-server
"""
import argparse
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, target):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", target)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


class EventStream:
    """A raw SSE reader (chunked transfer decoded loosely: events are found by their lines)."""

    def __init__(self, port, token):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.socket.sendall(f"GET /view/events?session={token} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        self.buffer = b""

    def wait_for(self, needle, deadline):
        while time.monotonic() < deadline:
            index = self.buffer.find(needle)
            if index >= 0:
                self.buffer = self.buffer[index + len(needle):]
                return True
            chunk = self.socket.recv(65536)
            if not chunk:
                return False
            self.buffer += chunk
        return False


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/release/hub-server"))
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=1, help="live sessions of hub:home (re-run on every edit)")
    parser.add_argument("--debounce-ms", type=int, default=100)
    arguments = parser.parse_args()

    work = tempfile.mkdtemp(prefix="hub-reload-bench-")
    config = os.path.join(work, "Config")
    shutil.copytree(os.path.join(ROOT, "Config"), config)
    with open(os.path.join(config, "server.json")) as file:
        settings = json.load(file)
    settings["reload"] = {"watch": True, "debounceMs": arguments.debounce_ms}
    settings.setdefault("log", {})["level"] = "warning"
    with open(os.path.join(config, "server.json"), "w") as file:
        json.dump(settings, file)
    # The home view's English strings are in the catalog (Config/strings/en.json).
    home_path = os.path.join(config, "strings", "en.json")
    with open(home_path) as file:
        home = file.read()
    port = free_port()
    environment = dict(os.environ, HUB_HOST="127.0.0.1", HUB_PORT=str(port))
    server = subprocess.Popen([arguments.server, "serve", "--config", config], env=environment,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                get(port, "/health")
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("server did not start")
                time.sleep(0.05)
        tokens = []
        for _ in range(arguments.sessions):
            response, _ = get(port, "/view?uri=hub:home")
            token = response.getheader("Hub-Session")
            get(port, f"/view?session={token}")  # used: stored and protected
            tokens.append(token)
        stream = EventStream(port, tokens[0])
        if not stream.wait_for(b"Recently played", time.monotonic() + 10):
            sys.exit("no first event")
        samples = []
        for round_number in range(arguments.rounds):
            title = f"Edited {round_number:05d}"
            temporary = home_path + ".tmp~"
            with open(temporary, "w") as file:
                file.write(home.replace("Recently played", title))
            started = time.monotonic()
            os.rename(temporary, home_path)
            if not stream.wait_for(title.encode(), started + 10):
                sys.exit(f"round {round_number}: no event within 10 s")
            samples.append((time.monotonic() - started) * 1000)
        print(f"reload latency (file write -> SSE event), {arguments.rounds} rounds, {arguments.sessions} live "
              f"session(s) of hub:home, debounce {arguments.debounce_ms} ms:")
        print(f"  p50 {percentile(samples, 0.5):.1f} ms  p90 {percentile(samples, 0.9):.1f} ms  "
              f"p99 {percentile(samples, 0.99):.1f} ms  max {max(samples):.1f} ms")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
