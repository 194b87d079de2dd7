#!/usr/bin/env python3
"""Slow senders against 127.0.0.1, bounded in time: each attacker connection trickles one
byte per interval and, once the server cuts it, reconnects and starts again, until
--seconds pass. Prints a JSON summary per kind: connections cut, seconds from connect to
cut (min, p50, max), responses seen before the cut.

  slowclients.py --port P --slowloris N --slowbody N [--interval 0.5] [--seconds 12]

  slowloris  a request head sent one byte at a time, never finished (header deadline)
  slowbody   a complete head of POST /action with Content-Length: 10000, then the body one
             byte at a time (body deadline)
"""
import argparse
import asyncio
import json
import time

HEAD_LORIS = b"GET /view?uri=hub:bench HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 4000
HEAD_BODY = (b"POST /action HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 10000\r\n\r\n")


def summary(durations, statuses, unfinished):
    durations = sorted(durations)
    pick = lambda q: round(durations[min(len(durations) - 1, int(q * (len(durations) - 1)))], 2) if durations else None
    return {"cut": len(durations), "seconds_min": pick(0), "seconds_p50": pick(0.5), "seconds_max": pick(1),
            "responses": statuses, "still_open_at_end": unfinished}


async def attacker(kind, port, interval, stop_at, durations, statuses, counters):
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            counters["connect_failed"] += 1
            await asyncio.sleep(interval)
            continue
        start = time.monotonic()
        if kind == "slowbody":
            writer.write(HEAD_BODY)
            payload = b"[" + b" " * 9998 + b"]"
        else:
            payload = HEAD_LORIS
        sent = 0
        reading = asyncio.ensure_future(reader.read(4096))
        cut = False
        while time.monotonic() < stop_at and sent < len(payload):
            try:
                writer.write(payload[sent:sent + 1])
                await writer.drain()
            except OSError:
                cut = True
                break
            sent += 1
            done, _ = await asyncio.wait([reading], timeout=interval)
            if done:
                cut = True
                break
        if cut:
            try:
                data = await asyncio.wait_for(reading, 2)
            except (OSError, asyncio.TimeoutError):
                data = b""
            if data.startswith(b"HTTP/1.1 "):
                status = data[9:12].decode()
                statuses[status] = statuses.get(status, 0) + 1
            durations.append(time.monotonic() - start)
        else:
            reading.cancel()
            counters["unfinished"] += 1
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--slowloris", type=int, default=100)
    parser.add_argument("--slowbody", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--seconds", type=float, default=12)
    args = parser.parse_args()
    stop_at = time.monotonic() + args.seconds
    results = {}
    tasks = []
    for kind, count in (("slowloris", args.slowloris), ("slowbody", args.slowbody)):
        durations, statuses, counters = [], {}, {"unfinished": 0, "connect_failed": 0}
        results[kind] = (durations, statuses, counters)
        tasks += [attacker(kind, args.port, args.interval, stop_at, durations, statuses, counters) for _ in range(count)]
    await asyncio.wait_for(asyncio.gather(*tasks), args.seconds + 30)
    out = {}
    for kind, (durations, statuses, counters) in results.items():
        out[kind] = summary(durations, statuses, counters["unfinished"])
        out[kind]["connect_failed"] = counters["connect_failed"]
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
