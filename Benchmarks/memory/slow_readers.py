#!/usr/bin/env python3
"""What slow readers of a large view make the server hold (docs/PERFORMANCE.md "Slow readers").

Starts the release hub-server on a free loopback port with a temporary copy of Config/ plus one
feature, `hub:big`, a static view of ROWS rows (about 3.5 MiB of JSON at the default), reads it
three times (a cached body sent twice earns a file of its own, which later responses are sent
from), then opens READERS connections that each ask for it once and read nothing for HOLD
seconds, and reports the process's resident memory (VmRSS) before and while they hold. Each
reader's receive buffer is set to RECEIVE bytes before it connects, so the server's socket takes
only part of the view at once, as over a real network where the client's window limits it (on
loopback the kernel otherwise queues megabytes per socket). Then every reader reads its
response to the end and the script checks each is complete and exact.

What it answers: whether a client that reads slowly makes the server keep a copy of the rest of
a large view (it should not: the rest goes from the body file as the socket drains).
Loopback only; bounded by the counts (under a minute).

  Benchmarks/memory/slow_readers.py [--binary .build/release/hub-server] [--readers 50]
                                    [--rows 30000] [--receive 65536] [--hold 3]
"""
import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from hub_process import RELEASE_BINARY, HubProcess  # noqa: E402


def big_feature(rows):
    """A feature serving `hub:big`: a static view of `rows` rows of about 120 bytes each."""
    body = [{"id": f"row-{i}", "component": {"id": "default:row", "category": "row"},
             "text": {"title": f"Row {i}: something to show today", "subtitle": "A subtitle of some length"}}
            for i in range(rows)]
    return {"id": "big", "title": "Big", "order": 1, "match": {"root": "hub:big"},
            "operations": [{"kind": "static", "json": {"title": "Big", "body": body}}]}


def request(path):
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept-Encoding: identity\r\n\r\n".encode()


def read_response(sock):
    """(status line, body) of one response with a Content-Length."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed before a response head")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length:"))
    parts = [body]
    received = len(body)
    while received < length:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise RuntimeError(f"the server closed after {received} of {length} body bytes")
        parts.append(chunk)
        received += len(chunk)
    return lines[0].decode(), b"".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=RELEASE_BINARY)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--rows", type=int, default=30000)
    parser.add_argument("--receive", type=int, default=65536, help="each reader's SO_RCVBUF, set before connecting")
    parser.add_argument("--hold", type=float, default=3.0, help="seconds the readers read nothing")
    args = parser.parse_args()

    hub = HubProcess(args.binary, {}, {"big": big_feature(args.rows)}, prefix="hub-slow-readers-")
    try:
        expected = None
        for _ in range(3):
            status, body = hub.get("/view?uri=hub:big")
            if status != 200:
                raise RuntimeError(f"GET /view?uri=hub:big answered {status}")
            expected = expected or body
            if body != expected:
                raise RuntimeError("the view's bytes changed between reads")
        time.sleep(0.5)
        before = hub.rss()
        readers = []
        for _ in range(args.readers):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.receive)
            sock.connect(("127.0.0.1", hub.port))
            sock.sendall(request("/view?uri=hub:big"))
            readers.append(sock)
        time.sleep(args.hold)
        holding = hub.rss()
        exact = 0
        for sock in readers:
            sock.settimeout(60)
            status, body = read_response(sock)
            exact += status.endswith("200 OK") and body == expected
            sock.close()
        print(f"view: {len(expected):,} bytes of JSON; {args.readers} readers, receive buffer {args.receive:,} bytes, "
              f"{args.hold:g} s reading nothing")
        print(f"hub-server RSS: {before / 1024:,.0f} KiB before, {holding / 1024:,.0f} KiB while they hold "
              f"({(holding - before) / 1024:+,.0f} KiB, {(holding - before) / args.readers / 1024:+,.1f} KiB per reader)")
        print(f"complete and exact responses: {exact} of {args.readers}")
        return 0 if exact == args.readers else 1
    finally:
        hub.stop()


if __name__ == "__main__":
    sys.exit(main())
