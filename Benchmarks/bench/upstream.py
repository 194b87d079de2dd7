#!/usr/bin/env python3
"""The bench's local upstream: a ThreadingHTTPServer on 127.0.0.1 (HTTP/1.1 keep-alive).

  upstream.py PORT [--max-seconds N] [--files DIR]
      stops by itself after N seconds (default 3600); --files: what /files/ serves

Routes:
  /items              the 40 remote components of the bench view, Cache-Control: max-age=3600
                      and an ETag, so HubServer caches them and memoizes the chain
  /files/NAME         the file NAME of --files DIR (a name, no path), Cache-Control: max-age=86400
                      and an ETag: a cached remote operation of any content (the matrix's)
  /slow/N?ms=100      two components after a delay of ms (default 100), Cache-Control: no-store
  /fast/N             one component at once, Cache-Control: no-store
  /fault/slow?ms=N    a valid list after N ms (default 5000)
  /fault/500          500 with a small body
  /fault/reset        the connection is reset (RST) before any answer
  /fault/invalid      200 application/json that is not JSON
  /fault/huge?mb=N    200 with a valid JSON list of N MiB (default 16), above upstream.maxResponseBytes
  /stale/F?v=N        the first request of each URL: a valid list (no Cache-Control); later ones
                      fail as /fault/F does (slow, 500, reset, invalid)
  /stale/swr?v=N      a valid list numbered by the request, Cache-Control: max-age=5 (after 0.5 s
                      from the second request on)
  /seen?url=U         {"requests": n}: requests of the URL U (path and query) so far
  /stats              {"requests": n, "connections": n} since start (or since /stats?reset=1)
"""
import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "upstream", "items.json"), "rb") as f:
    ITEMS = f.read()
ITEMS_ETAG = '"items-%08x"' % (hash(ITEMS) & 0xFFFFFFFF)

lock = threading.Lock()
stats = {"requests": 0, "connections": 0}
seen = {}  # path and query -> requests (the /stale/ routes)
files_dir = None  # --files DIR


def bump(key):
    with lock:
        stats[key] += 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms delayed-ACK stalls
    server_version = "bench-upstream"

    def setup(self):
        super().setup()
        bump("connections")

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", cache="no-store", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if cache:
            self.send_header("Cache-Control", cache)
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        bump("requests")
        url = urlparse(self.path)
        query = parse_qs(url.query)
        path = url.path

        def number(name, default):
            try:
                return int(query.get(name, [default])[0])
            except ValueError:
                return default

        if path == "/items":
            if self.headers.get("If-None-Match") == ITEMS_ETAG:
                self.send_response(304)
                self.send_header("ETag", ITEMS_ETAG)
                self.send_header("Cache-Control", "max-age=3600")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send(200, ITEMS, cache="max-age=3600", extra=[("ETag", ITEMS_ETAG)])
        elif path.startswith("/files/"):
            name = path[len("/files/"):]
            file = os.path.join(files_dir, name) if files_dir and name and "/" not in name and not name.startswith(".") else None
            if file is None or not os.path.isfile(file):
                self.send(404, b'{"error":"not found"}')
                return
            with open(file, "rb") as handle:
                body = handle.read()
            etag = '"file-%08x"' % (hash(body) & 0xFFFFFFFF)
            if self.headers.get("If-None-Match") == etag:
                self.send(304, b"", cache="max-age=86400", extra=[("ETag", etag)])
                return
            self.send(200, body, cache="max-age=86400", extra=[("ETag", etag)])
        elif path.startswith("/slow/"):
            n = path.rsplit("/", 1)[-1]
            time.sleep(number("ms", 100) / 1000)
            self.send(200, json.dumps([{"id": f"slow-{n}-a", "text": {"title": "A"}}, {"id": f"slow-{n}-b"}]).encode())
        elif path.startswith("/fast/"):
            n = path.rsplit("/", 1)[-1]
            self.send(200, json.dumps([{"id": f"fast-{n}"}]).encode())
        elif path == "/fault/slow":
            time.sleep(number("ms", 5000) / 1000)
            self.send(200, b'[{"id":"slow-answer"}]')
        elif path == "/fault/500":
            self.send(500, b'{"error":"internal"}')
        elif path == "/fault/reset":
            # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
        elif path == "/fault/invalid":
            self.send(200, b'{"body": [ {"id": "broken", ')
        elif path == "/fault/huge":
            mib = number("mb", 16)
            chunk = b'{"id":"x","text":{"title":"' + b"y" * 1000 + b'"}},'
            count = (mib << 20) // len(chunk) + 1
            body = b"[" + chunk * count + b'{"id":"end"}]'
            self.send(200, body)
        elif path.startswith("/stale/"):
            fault = path.rsplit("/", 1)[-1]
            with lock:
                seen[self.path] = seen.get(self.path, 0) + 1
                count = seen[self.path]
            good = json.dumps([{"id": "good", "text": {"title": f"answer {count}"}}]).encode()
            if fault == "swr":
                if count > 1:
                    time.sleep(0.5)  # a slow refresh (below upstream.timeoutMs): the views meanwhile must not wait for it
                self.send(200, good, cache="max-age=5")
            elif count == 1:
                self.send(200, good, cache=None)
            elif fault == "slow":
                time.sleep(3)
                self.send(200, good, cache=None)
            elif fault == "500":
                self.send(500, b'{"error":"internal"}')
            elif fault == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
            else:
                self.send(200, b'{"body": [ {"id": "broken", ', cache=None)
        elif path == "/seen":
            with lock:
                body = json.dumps({"requests": seen.get(query.get("url", [""])[0], 0)}).encode()
            self.send(200, body)
        elif path == "/stats":
            with lock:
                body = json.dumps(stats).encode()
                if "reset" in query:
                    stats["requests"] = 0
                    stats["connections"] = 0
            self.send(200, body)
        else:
            self.send(404, b'{"error":"not found"}')


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        pass  # clients (libcurl on timeouts, the fault tests) reset connections: not news


def main():
    global files_dir
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18081
    max_seconds = 3600
    if "--max-seconds" in sys.argv:
        max_seconds = int(sys.argv[sys.argv.index("--max-seconds") + 1])
    if "--files" in sys.argv:
        files_dir = sys.argv[sys.argv.index("--files") + 1]
    server = Server(("127.0.0.1", port), Handler)
    # Bounded in time: stop by itself even if the script that started it died.
    threading.Timer(max_seconds, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
