#!/usr/bin/env bash
# State that cannot fill the disk: hub-server on the demo config with the default SQLite store
# in a fresh data directory, and a hostile client that, for STATE_DISK_SECONDS (default 20),
# alternates `todo:add` with the largest title the demo takes and `todo:delete` on two held
# sessions as fast as it can (two connections per session), after filling both lists up to
# state.maxValueBytes so that every write rewrites a ~64 KB value. The -wal file's size is
# sampled every 20 ms throughout. PASS when it stays under 64 MiB throughout and after, no
# request failed with a 5xx, and the data directory is 0700 with its files 0600. Prints the
# peak log size and the write rate.
#
# The per-client limits are raised out of the way in the script's own server.json (this
# measures the log's bound, not the rate limits).
#
#   Tests/system/robustness/state_disk.sh [SECONDS]    (HUB_BIN: another build; release by default)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
seconds=${1:-${STATE_DISK_SECONDS:-20}}
demo_setup '{ "host": "127.0.0.1", "log": { "level": "warning" },
             "limits": { "sessionsPerClient": { "perSecond": 1000000, "burst": 1000000 },
                         "actionsPerClient": { "perSecond": 1000000, "burst": 1000000 } } }'
export HUB_DATA_DIR="$WORK_TMP/data"
start_hub "$config" "$CHECK_PORT" "$WORK_TMP/hub.log"
base="http://127.0.0.1:$CHECK_PORT"
log "hub-server $HUB_BIN on $base, data in $HUB_DATA_DIR; hostile writes for ${seconds}s"

python3 - "$base" "$HUB_DATA_DIR" "$seconds" <<'PY'
import http.client, json, os, re, stat, sys, threading, time
from urllib.parse import urlparse

base, data, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
url = urlparse(base)
wal = os.path.join(data, "state.sqlite3-wal")
limit = 64 << 20
# The largest title the demo takes (200 characters, 400 bytes of UTF-8) that is also the
# largest once stored: 199 control characters (each 6 bytes of JSON, \u0001) and one letter
# with 100 combining accents.
title = "\u0001" * 199 + "e" + "\u0301" * 100
assert len(title.encode()) == 400

def connect():
    return http.client.HTTPConnection(url.hostname, url.port, timeout=30)

def call(connection, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    return response.status, response.getheader("Hub-Session"), response.read()

setup = connect()
status, first, _ = call(setup, "GET", "/view?uri=hub:todo")
status, second, _ = call(setup, "GET", "/view?uri=hub:todo")
sessions = [first, second]

def item_ids(view):
    """The todo items' ids in a view (a dict)."""
    return [item["id"] for item in view.get("body", []) if re.fullmatch(r"todo-\d+", item.get("id", ""))]

# Fill each list until the value is as large as state.maxValueBytes allows (413 state_too_large).
filled = {}
for session in sessions:
    count = 0
    while True:
        status, _, body = call(setup, "POST", "/action", {"session": session, "action": "todo:add", "custom": {"title": title}})
        if status != 200 or not json.loads(body).get("performed"):
            break
        count += 1
    filled[session] = count
    if status not in (200, 413):
        sys.exit(f"FAIL: filling answered {status}: {body[:300]!r}")

counts = {"writes": 0, "refused": 0, "errors": 0}
statuses = {}
lock = threading.Lock()
peak = [0]
stop = time.monotonic() + seconds
sampling = [True]

def sample():
    while sampling[0]:
        try:
            size = os.stat(wal).st_size
        except FileNotFoundError:
            size = 0
        with lock:
            peak[0] = max(peak[0], size)
        time.sleep(0.02)

def hostile(session):
    connection = connect()
    status, _, body = call(connection, "GET", f"/view?session={session}")
    ids = item_ids(json.loads(body))
    # Delete the last item, add one back (the list stays full: each write rewrites ~64 KB).
    while time.monotonic() < stop:
        for action in ("todo:delete", "todo:add"):
            if action == "todo:delete":
                if not ids:
                    continue
                request = {"session": session, "action": action, "custom": {"id": ids[-1]}}
            else:
                request = {"session": session, "action": action, "custom": {"title": title}}
            status, _, body = call(connection, "POST", "/action", request)
            answer = json.loads(body) if body else {}
            if status == 200:
                ids = item_ids(answer.get("view", {}))
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200 and answer.get("performed"):
                    counts["writes"] += 1
                elif status >= 500:
                    counts["errors"] += 1
                else:
                    counts["refused"] += 1

sampler = threading.Thread(target=sample)
sampler.start()
started = time.monotonic()
workers = [threading.Thread(target=hostile, args=(session,)) for session in sessions for _ in range(2)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
elapsed = time.monotonic() - started
time.sleep(0.5)
sampling[0] = False
sampler.join()
after = os.stat(wal).st_size if os.path.exists(wal) else 0
database = os.stat(os.path.join(data, "state.sqlite3")).st_size

status, _, body = call(setup, "GET", f"/view?session={first}")
# The stored list's size, about: each item's title as JSON (control characters escaped) and its id.
value_bytes = len(item_ids(json.loads(body))) * (len(json.dumps(title, ensure_ascii=False).encode()) + 32)
modes = {name: oct(stat.S_IMODE(os.stat(os.path.join(data, name)).st_mode)) for name in sorted(os.listdir(data))}
directory_mode = oct(stat.S_IMODE(os.stat(data).st_mode))

print(f"filled: {list(filled.values())} items in the two lists, each title 200 characters in 400 bytes (about {value_bytes // 1024} KiB of JSON per list)")
print(f"writes: {counts['writes']} performed in {elapsed:.1f}s ({counts['writes'] / elapsed:.0f} writes/s, "
      f"about {counts['writes'] * value_bytes / elapsed / (1 << 20):.1f} MiB/s of values); answers {dict(sorted(statuses.items()))}")
print(f"wal: peak {peak[0] / (1 << 20):.1f} MiB, after {after / (1 << 20):.1f} MiB (limit {limit >> 20} MiB); database {database / (1 << 20):.1f} MiB")
print(f"modes: {data} {directory_mode}, {modes}")
failures = []
if peak[0] >= limit or after >= limit:
    failures.append("the write-ahead log reached 64 MiB")
if counts["errors"]:
    failures.append(f"{counts['errors']} answers were 5xx")
if counts["writes"] == 0:
    failures.append("no write was performed")
if directory_mode != "0o700" or any(mode != "0o600" for mode in modes.values()):
    failures.append("the data directory is not 0700 with files 0600")
print("FAIL: state_disk: " + "; ".join(failures) if failures else "PASS: state_disk")
sys.exit(1 if failures else 0)
PY
