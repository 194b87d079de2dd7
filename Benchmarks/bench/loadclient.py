#!/usr/bin/env python3
"""A small asyncio HTTP/1.1 client for the figures and robustness scripts: it records the
outcome of every request (wrk only counts). 127.0.0.1 only; every mode is bounded in count
and time.

  loadclient.py requests --port P --path-template '/view?uri=hub:x?v={i}' --count N --concurrency C
        N requests over C keep-alive connections; prints a JSON summary (statuses, latencies).
  loadclient.py hold --port P --path /health --connections N --seconds S --ready FILE
        opens N keep-alive connections, makes one request on each, writes FILE, holds them
        idle for S seconds (or until FILE is deleted), then checks each is still open and
        prints a JSON summary.
  loadclient.py loop --port P --path-template T --connections C --seconds S [--max-requests N]
        C connections loop requests until S seconds pass or the server goes away; every request
        is classified: ok (complete response), refused (connect refused: the listener closed),
        reset_before_response (written on an open connection, nothing came back),
        partial (some response bytes, then EOF or reset), timeout; and, not a request,
        idle_closed_by_server (a kept-alive connection found closed before reuse: reconnect).
"""
import argparse
import asyncio
import json
import os
import sys
import time


class Incomplete(Exception):
    def __init__(self, got_bytes, cause="eof"):
        self.got_bytes = got_bytes
        self.cause = cause


async def read_response(reader):
    """Reads one response; returns (status, headers dict, body length). Raises Incomplete."""
    got = 0
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        raise Incomplete(len(error.partial), "eof")
    except (ConnectionResetError, BrokenPipeError) as error:
        raise Incomplete(0, type(error).__name__)
    got = len(head)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    try:
        if length:
            await reader.readexactly(length)
    except asyncio.IncompleteReadError as error:
        raise Incomplete(got + len(error.partial), "eof")
    except (ConnectionResetError, BrokenPipeError) as error:
        raise Incomplete(got, type(error).__name__)
    return status, headers, length


def request_bytes(path, extra=""):
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def mode_requests(args):
    counter = iter(range(args.count))
    statuses = {}
    latencies = []
    errors = []

    async def worker():
        reader = writer = None
        for i in counter:
            path = args.path_template.replace("{i}", str(i))
            start = time.monotonic()
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
                writer.write(request_bytes(path, args.header))
                status, headers, _ = await asyncio.wait_for(read_response(reader), args.timeout)
                latencies.append((time.monotonic() - start) * 1000)
                statuses[status] = statuses.get(status, 0) + 1
                if headers.get("connection", "").lower() == "close":
                    writer.close()
                    writer = None
            except (OSError, Incomplete, asyncio.TimeoutError) as error:
                errors.append(type(error).__name__)
                if writer is not None:
                    writer.close()
                writer = None
        if writer is not None:
            writer.close()

    start = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(args.concurrency))), args.max_seconds)
    elapsed = time.monotonic() - start
    print(json.dumps({
        "requests": args.count, "seconds": round(elapsed, 3), "statuses": statuses, "errors": len(errors),
        "error_kinds": sorted(set(errors)),
        "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99), "max_ms": max(latencies, default=None),
    }))


async def mode_hold(args):
    connections = []
    failed = 0
    start = time.monotonic()
    semaphore = asyncio.Semaphore(200)

    async def open_one():
        nonlocal failed
        async with semaphore:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", args.port), 10)
                writer.write(request_bytes(args.path))
                status, _, _ = await asyncio.wait_for(read_response(reader), 10)
                if status != 200:
                    failed += 1
                connections.append((reader, writer))
            except (OSError, Incomplete, asyncio.TimeoutError):
                failed += 1

    await asyncio.wait_for(asyncio.gather(*(open_one() for _ in range(args.connections))), args.seconds + 60)
    opened = time.monotonic() - start
    with open(args.ready, "w") as f:
        f.write(json.dumps({"open": len(connections), "failed": failed}))
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline and os.path.exists(args.ready):
        await asyncio.sleep(0.2)
    # Still open? The transport keeps reading, so a connection the server closed is at EOF.
    await asyncio.sleep(0.1)
    still_open = sum(1 for reader, writer in connections if not reader.at_eof() and not writer.is_closing())
    for _, writer in connections:
        writer.close()
    print(json.dumps({"connections": args.connections, "opened": len(connections), "failed": failed,
                      "seconds_to_open": round(opened, 2), "still_open_at_end": still_open}))


async def mode_loop(args):
    outcome = {"ok": 0, "refused": 0, "idle_closed_by_server": 0, "reset_before_response": 0, "partial": 0,
               "timeout": 0, "other": 0}
    statuses = {}
    connects = {"fresh": 0}
    closes_by_server = 0
    stop_at = time.monotonic() + args.seconds
    issued = 0
    gone = asyncio.Event()
    examples = []

    async def worker(w):
        nonlocal issued, closes_by_server
        reader = writer = None
        i = 0
        while time.monotonic() < stop_at and not gone.is_set():
            if args.max_requests and issued >= args.max_requests:
                break
            if writer is None:
                try:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", args.port), 5)
                    connects["fresh"] += 1
                except ConnectionRefusedError:
                    outcome["refused"] += 1
                    gone.set()  # the listener closed: the server is going away
                    break
                except (OSError, asyncio.TimeoutError):
                    outcome["other"] += 1
                    await asyncio.sleep(0.05)
                    continue
            else:
                # A reused connection: like every HTTP client, check that the server has not
                # closed it while idle (EOF already received) before writing on it.
                await asyncio.sleep(0)
                if reader.at_eof():
                    outcome["idle_closed_by_server"] += 1
                    writer.close()
                    writer = None
                    continue
            path = args.path_template.replace("{i}", f"{w}-{i}").replace("{w}", str(w))
            i += 1
            issued += 1
            try:
                writer.write(request_bytes(path))
                status, headers, _ = await asyncio.wait_for(read_response(reader), args.timeout)
                outcome["ok"] += 1
                statuses[status] = statuses.get(status, 0) + 1
                if headers.get("connection", "").lower() == "close":
                    closes_by_server += 1
                    writer.close()
                    writer = None
            except Incomplete as error:
                key = "partial" if error.got_bytes else "reset_before_response"
                outcome[key] += 1
                if len(examples) < 5:
                    examples.append({"path": path, "kind": key, "bytes": error.got_bytes, "cause": error.cause,
                                     "request_on_connection": i})
                writer.close()
                writer = None
            except asyncio.TimeoutError:
                outcome["timeout"] += 1
                writer.close()
                writer = None
            except OSError as error:
                outcome["reset_before_response"] += 1
                if len(examples) < 5:
                    examples.append({"path": path, "kind": type(error).__name__})
                writer.close()
                writer = None
        if writer is not None:
            writer.close()

    await asyncio.wait_for(asyncio.gather(*(worker(w) for w in range(args.connections))), args.seconds + 60)
    print(json.dumps({"outcomes": outcome, "statuses": statuses, "connections_opened": connects["fresh"],
                      "closed_by_server_with_connection_close": closes_by_server, "examples": examples}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["requests", "hold", "loop"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/health")
    parser.add_argument("--path-template", default="/health")
    parser.add_argument("--header", default="", help="extra header lines, each ending in \\r\\n")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--max-seconds", type=float, default=120)
    parser.add_argument("--max-requests", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10)
    parser.add_argument("--ready", default="")
    args = parser.parse_args()
    args.header = args.header.encode().decode("unicode_escape") if args.header else ""
    asyncio.run({"requests": mode_requests, "hold": mode_hold, "loop": mode_loop}[args.mode](args))


if __name__ == "__main__":
    main()
