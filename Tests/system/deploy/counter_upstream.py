#!/usr/bin/env python3
"""Durable session state in an upstream service: the pattern docs/DEPLOYMENT.md recommends,
as a tiny stdlib service for the replica tests (Tests/system/deploy/replicas.sh, Tests/system/robustness/
replicas.sh and rolling-restart.sh). HubServer replicas keep no counter of their own: a remote
operation reads it and a remote action changes it, both keyed by the session id, so a session
rebuilt on another replica shows the same count.

  counter_upstream.py PORT [--max-seconds N] [--delay-ms MS]
                              (127.0.0.1 only; stops after N s; answers each request MS late,
                              so that requests are in flight when a replica is killed)

Routes:
  GET  /count/<session id>   the view: one row whose title is "count N" (custom.count = N),
                             Cache-Control: no-store (never cached, never memoized)
  POST /actions/add          HubServer's remote action body {"session": id, ...}: N += 1
  GET  /stats                {"requests": n, "adds": n}
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
counts = {}
stats = {"requests": 0, "adds": 0}
delay_seconds = 0.0


def view(count):
    return {"title": "Counter", "body": [
        {"id": "count", "component": {"id": "default:row", "category": "row"},
         "text": {"title": f"count {count}"}, "custom": {"count": count}}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "counter-upstream"

    def log_message(self, *args):
        pass

    def send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with lock:
            stats["requests"] += 1
        if self.path != "/stats":
            time.sleep(delay_seconds)
        if self.path.startswith("/count/"):
            session = self.path[len("/count/"):]
            with lock:
                count = counts.get(session, 0)
            self.send(200, view(count))
        elif self.path == "/stats":
            with lock:
                self.send(200, dict(stats))
        else:
            self.send(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        with lock:
            stats["requests"] += 1
        time.sleep(delay_seconds)
        if self.path != "/actions/add":
            self.send(404, {"error": "no such action"})
            return
        try:
            session = json.loads(raw)["session"]
        except (ValueError, KeyError, TypeError):
            self.send(400, {"error": "body needs 'session'"})
            return
        with lock:
            counts[session] = counts.get(session, 0) + 1
            stats["adds"] += 1
        self.send(200, {})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # 50 clients' first views arrive at once (the default backlog is 5)

    def handle_error(self, request, client_address):
        pass  # a replica killed mid-request resets its connection: expected here


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--delay-ms", type=float, default=0)
    args = parser.parse_args()
    global delay_seconds
    delay_seconds = args.delay_ms / 1000
    server = Server(("127.0.0.1", args.port), Handler)
    threading.Timer(args.max_seconds, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
