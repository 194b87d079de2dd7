#!/usr/bin/env python3
"""Many users behind the shipped nginx: each from its own loopback source address, each opens a
view and holds one event stream through the balancer; prints PASS/FAIL lines.

  many_clients.py --balancer PORT --replica PORT --clients 40

Linux answers the whole 127.0.0.0/8 on loopback, so client i connects from 127.0.0.(10+i).
Every stream must be 200: the replica (on deploy/server.json, which trusts loopback and the
private ranges) tells the users apart by the X-Forwarded-For nginx appends, instead of counting
them all as nginx's address against limits.sseStreamsPerClient (32). Bounded: every socket has
a 10 s timeout and the whole run stops after 60 s.
"""
import argparse
import http.client
import json
import socket
import sys
import time


def open_view(port, source):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    connection.request("GET", "/view?uri=hub:home")
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, response.getheader("Hub-Session")


def open_stream(port, source, token):
    """The stream's status; the socket stays open (held) and is returned."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    sock.sendall((f"GET /view/events?session={token} HTTP/1.1\r\nHost: hub\r\n"
                  "Accept: text/event-stream\r\n\r\n").encode())
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    return status, sock


def metric(port, name):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--balancer", type=int, required=True)
    parser.add_argument("--replica", type=int, required=True)
    parser.add_argument("--clients", type=int, default=40)
    args = parser.parse_args()
    deadline = time.monotonic() + 60
    failures = 0
    held = []
    statuses = {}
    for index in range(args.clients):
        if time.monotonic() > deadline:
            print("FAIL: many-clients: out of time")
            return 1
        source = f"127.0.0.{10 + index}"
        status, token = open_view(args.balancer, source)
        if status != 200 or not token:
            print(f"FAIL: many-clients: {source} GET /view answered {status}")
            failures += 1
            continue
        status, sock = open_stream(args.balancer, source, token)
        held.append(sock)
        statuses[status] = statuses.get(status, 0) + 1
    summary = ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
    if statuses.get(200, 0) == args.clients:
        print(f"PASS: many-clients: {args.clients} users from their own addresses behind the shipped nginx each hold "
              f"an event stream ({summary})")
    else:
        print(f"FAIL: many-clients: {args.clients} users' event streams answered {summary}")
        failures += 1
    ignored = metric(args.replica, "hub_forwarded_for_ignored_total")
    if ignored == 0:
        print("PASS: many-clients: the replica trusts the shipped nginx (hub_forwarded_for_ignored_total 0)")
    else:
        print(f"FAIL: many-clients: hub_forwarded_for_ignored_total is {ignored}")
        failures += 1
    for sock in held:
        sock.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
