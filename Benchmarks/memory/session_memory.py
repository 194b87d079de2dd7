#!/usr/bin/env python3
"""Memory per held session, as the view grows (docs/PERFORMANCE.md "Memory per held session").

Starts the release hub-server on a free loopback port with a temporary copy of Config/ (the
state store in memory, the render cache and the chain memo at 1 byte so that they hold
nothing), warms it up, then for each case opens SESSIONS sessions and brings each one's view to
ITEMS rows, reads the view twice more, and reads the process's resident memory (VmRSS) before
and after:

  todo   the demo's todo list: GET /view?uri=hub:todo, then POST /action todo:add (or
         todo:delete) until the list has ITEMS items, then GET /view?session= twice. The
         list itself lives in the state store (memory backend): its
         bytes (the list's JSON text plus about 100 bytes of key and table slot) are
         subtracted, as are the caches' own bytes (hub_cache_bytes, near 0 here).
  remote a view of its own per session from a local upstream (Cache-Control: no-store, never
         memoized): GET /view?uri=hub:rows-ITEMS, then GET /view?session= twice.
  headers the remote case with the most retained request headers a session may keep: every
         request sends four 128-byte Hub-Client fields (one, the last, is kept), a 1 KiB
         Hub-Toggle and four 4 KB X-Forward-Data fields (the feature forwards that header, so
         the session keeps them: 16 KiB, RetainedHeaders' total cap).

--check-estimate: exit 1 unless each case's estimate (hub_sessions_bytes growth per session)
is within 25% of its RSS growth per session, both ways (docs/PERFORMANCE.md "Session estimate").

Prints, per case, the view's JSON bytes, the RSS bytes per session, the budget 2 x JSON +
4 KiB, and the sessions' own estimate per session (hub_sessions_bytes, what sessions.maxBytes
bounds). Loopback only; bounded by the counts (a few minutes on two cores).

  Benchmarks/memory/session_memory.py [--binary .build/release/hub-server]
                                      [--sessions 400] [--items 1,50,100] [--views todo,remote]
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from hub_process import RELEASE_BINARY, HubProcess, in_threads  # noqa: E402

STARTER = ["Buy milk", "Write the HubServer talk", "Water the plants"]


def row_title(session_index, item):
    return f"Item {item} of session {session_index}: something to do today"


def rows_view(count, seed):
    """The remote view: `count` rows, each about as big as a todo row."""
    return {"title": "Rows", "body": [
        {"id": f"row-{i}", "component": {"id": "default:row", "category": "row"},
         "text": {"title": f"Row {i} of {seed}: something to show today"},
         "target": {"actions": ["rows:open"]}} for i in range(count)]}


class Upstream(BaseHTTPRequestHandler):
    """GET /rows/<count>/<session>: a view of `count` rows, never cached."""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        body = json.dumps(rows_view(int(parts[1]), parts[2])).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def start_hub(binary, items, upstream_port, sessions_max):
    """hub-server with the caches at 1 byte (they hold nothing) and a remote rows feature per
    item count."""
    # One client (this script) opens every session and fills the todo lists by POST /action:
    # neither per-client bucket may refuse it.
    settings = {"limits": {"sessionsPerClient": {"perSecond": 100000, "burst": 100000},
                           "actionsPerClient": {"perSecond": 100000, "burst": 100000}},
                "sessions": {"max": sessions_max},
                "caches": {"renderBytes": 1, "memoBytes": 1},
                "state": {"backend": "memory"},
                "reload": {"watch": False},
                "log": {"level": "warning"}}
    features = {f"rows-{count}": {"id": f"rows-{count}", "title": "Rows", "match": {"uri": f"hub:rows-{count}"},
                                  "operations": [{"kind": "remote",
                                                  "url": f"http://127.0.0.1:{upstream_port}/rows/{count}/{{session}}",
                                                  "forwardHeaders": ["X-Forward-Data"]}]}
                for count in items}
    return HubProcess(binary, settings, features, prefix="hub-session-memory-")


def request(connection, method, path, body=None, headers=None):
    payload = json.dumps(body).encode() if body is not None else None
    all_headers = {"Content-Type": "application/json"} if payload else {}
    all_headers.update(headers or {})
    connection.request(method, path, body=payload, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
    return response, data


def todo_session(connection, index, items):
    """One todo session brought to `items` items; returns the view's JSON bytes and the
    state's JSON text length."""
    response, _ = request(connection, "GET", "/view?uri=hub:todo")
    token = response.getheader("Hub-Session")
    titles = list(STARTER)
    ids = [f"todo-{i + 1}" for i in range(len(STARTER))]
    next_id = len(STARTER) + 1
    while len(titles) > items:
        request(connection, "POST", "/action", {"session": token, "action": "todo:delete", "custom": {"id": ids[0]}})
        titles.pop(0)
        ids.pop(0)
    while len(titles) < items:
        title = row_title(index, len(titles))
        request(connection, "POST", "/action", {"session": token, "action": "todo:add", "custom": {"title": title}})
        titles.append(title)
        ids.append(f"todo-{next_id}")
        next_id += 1
    request(connection, "GET", "/view?session=" + token)
    _, view = request(connection, "GET", "/view?session=" + token)
    state = json.dumps({"next": next_id, "items": [{"id": i, "title": t} for i, t in zip(ids, titles)]},
                       separators=(",", ":"))
    return len(view), len(state.encode())


def remote_session(connection, index, items):
    response, _ = request(connection, "GET", f"/view?uri=hub:rows-{items}")
    token = response.getheader("Hub-Session")
    request(connection, "GET", "/view?session=" + token)
    _, view = request(connection, "GET", "/view?session=" + token)
    return len(view), 0


HEAVY_HEADERS = ([("Hub-Client", f"app/{i}." + "c" * 118) for i in range(4)]
                 + [("Hub-Toggle", ", ".join(f"toggle{i:03}=value{i:03}" for i in range(47))[:1024])]
                 + [("X-Forward-Data", f"{i}" + "d" * 4095) for i in range(4)])


def heavy_request(connection, path):
    """GET path with HEAVY_HEADERS (repeated fields sent as they are)."""
    connection.putrequest("GET", path)
    for name, value in HEAVY_HEADERS:
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: {response.status} {data[:200]!r}")
    return response, data


def headers_session(connection, index, items):
    response, _ = heavy_request(connection, f"/view?uri=hub:rows-{items}")
    token = response.getheader("Hub-Session")
    heavy_request(connection, "/view?session=" + token)
    _, view = heavy_request(connection, "/view?session=" + token)
    return len(view), 0


def open_sessions(hub, kind, items, count, first_index, threads=4):
    make = {"todo": todo_session, "remote": remote_session, "headers": headers_session}[kind]
    return in_threads(hub.port, lambda connection, index: make(connection, index, items),
                      range(first_index, first_index + count), threads)


def measure(binary, kind, items, sessions, upstream_port, all_items, sessions_max):
    hub = start_hub(binary, all_items, upstream_port, sessions_max)
    try:
        # Warm up every code path and the allocator with a tenth of the sessions, then settle.
        open_sessions(hub, kind, items, max(8, sessions // 10), 1_000_000)
        time.sleep(1)
        sessions_before, rss_before, caches_before = hub.sessions(), hub.rss(), hub.cache_bytes()
        estimate_before = hub.sessions_bytes()
        results = open_sessions(hub, kind, items, sessions, 0)
        time.sleep(1)
        sessions_after, rss_after, caches_after = hub.sessions(), hub.rss(), hub.cache_bytes()
        estimate = (hub.sessions_bytes() - estimate_before) / sessions
        held = sessions_after - sessions_before
        if held != sessions:
            raise RuntimeError(f"{held} sessions held, not {sessions}")
        view_bytes = sum(r[0] for r in results) / len(results)
        state_bytes = sum(r[1] + 100 for r in results if r[1]) if kind == "todo" else 0
        per = (rss_after - rss_before - (caches_after - caches_before) - state_bytes) / held
        return view_bytes, per, (rss_after - rss_before) / held, estimate
    finally:
        hub.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=RELEASE_BINARY)
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--items", default="1,50,100")
    parser.add_argument("--views", default="todo,remote")
    parser.add_argument("--max", type=int, default=100000, help="sessions.max (default: the default)")
    parser.add_argument("--check-estimate", action="store_true",
                        help="fail unless each estimate is within 25%% of the RSS growth per session")
    args = parser.parse_args()
    items = [int(n) for n in args.items.split(",")]
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    print(f"{args.sessions} sessions per case; RSS per session with the caches' and the state's own bytes "
          "subtracted; budget = 2 x view JSON + 4096")
    print(f"{'view':<7} {'items':>5} {'view JSON':>10} {'per session':>12} {'(raw RSS)':>10} {'budget':>8}  within"
          f"  {'estimate':>8} (hub_sessions_bytes per session)")
    failed = False
    for kind in args.views.split(","):
        for count in items:
            view_bytes, per, raw, estimate = measure(args.binary, kind, count, args.sessions, upstream.server_port, items, args.max)
            # The headers case keeps what its requests send besides the view: one Hub-Client,
            # the Hub-Toggle and 16 KiB of X-Data.
            budget = 2 * view_bytes + 4096 + (128 + 1024 + 4 * 4096 if kind == "headers" else 0)
            within = per <= budget
            failed |= not within
            ratio = estimate / per if per > 0 else float("inf")
            print(f"{kind:<7} {count:>5} {view_bytes:>10,.0f} {per:>12,.0f} {raw:>10,.0f} {budget:>8,.0f}  "
                  f"{'yes' if within else 'NO':<6}  {estimate:>8,.0f}  estimate/RSS {ratio:.2f}", flush=True)
            if args.check_estimate and not 0.75 <= ratio <= 1.25:
                print(f"  the estimate is not within 25% of the RSS growth", flush=True)
                failed = True
    upstream.shutdown()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
