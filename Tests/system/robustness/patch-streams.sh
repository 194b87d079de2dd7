#!/usr/bin/env bash
# One client's patch streams cannot grow memory without bound: on the release build
# with the demo config, one held todo session, PATCH_STREAMS (default 10,000) short
# `GET /view/events?session=T&patch=json-patch` streams, each with a `Hub-Components` value of
# its own (a client variant of its own), each read to its first event and closed, PATCH_THREADS
# (default 4) at a time, a todo:add every 50 streams (so open listeners get patches); bounded
# by PATCH_SECONDS (default 120). RSS (VmRSS from /proc) is read before, after, and after the
# streams have closed. PASS when RSS grew by at most PATCH_MAX_RSS_GROWTH_MIB (default 64),
# at least nine streams in ten were answered 200, hub_patch_history_bytes stayed within
# limits.patchHistoryBytes and fell back to 0 with the last listener, and the session's view
# is still served. PATCH_SAME_VARIANT=1 gives every stream the same Hub-Components (a control:
# what the streams cost without variants).
#
#   Tests/system/robustness/patch-streams.sh [STREAMS]        (not part of `make test`)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
streams=${1:-${PATCH_STREAMS:-10000}}
threads=${PATCH_THREADS:-4}
seconds=${PATCH_SECONDS:-120}
max_growth_mib=${PATCH_MAX_RSS_GROWTH_MIB:-64}
# More listeners per session than the default 8 so that the flood is not slowed by 429s.
demo_setup '{ "host": "127.0.0.1", "log": { "level": "warning" }, "limits": { "sseListenersPerSession": 64 } }'
start_hub "$config" "$CHECK_PORT" "$WORK_TMP/hub.log"
base="http://127.0.0.1:$CHECK_PORT"
metric() { curl -s "$base/metrics" | awk -v name="$1" '$1 == name { print $2 }'; }

session=$(session_of "$base/view?uri=hub:todo")
[ -n "$session" ] || { echo "FAIL: patch-streams (no session)"; exit 1; }
# Warm up: a few streams and actions, so that the allocator and the caches have their first pages.
for i in 1 2 3; do
    curl -s -X POST "$base/action" -H "Hub-Session: $session" -H 'Content-Type: application/json' \
        -d "{\"action\":\"todo:add\",\"custom\":{\"title\":\"warm $i\"}}" >/dev/null
    timeout 5 curl -sN -m 1 "$base/view/events?session=$session&patch=json-patch" >/dev/null 2>&1 || true
done
sleep 1
rss_before=$(rss_kib "$HUB_PID")

cat >"$WORK_TMP/flood.py" <<'PY'
import socket, sys, threading, time, json, urllib.request
VARY = __import__("os").environ.get("PATCH_SAME_VARIANT") != "1"
port, session, total, threads, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
deadline = time.monotonic() + seconds
lock = threading.Lock()
counts = {"next": 0, "ok": 0, "other": 0, "patch_seen": 0}

def take():
    with lock:
        if counts["next"] >= total or time.monotonic() > deadline:
            return None
        counts["next"] += 1
        return counts["next"]

def action(index):
    body = json.dumps({"action": "todo:add", "custom": {"title": f"flood {index}"}}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/action", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Hub-Session": session})
    urllib.request.urlopen(request, timeout=10).read()

def stream(index):
    components = f"default:row, default:header, flood:c{index if VARY else 0}"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall((f"GET /view/events?session={session}&patch=json-patch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      f"Accept: text/event-stream\r\nHub-Components: {components}\r\n\r\n").encode())
        data = b""
        while True:
            head, _, rest = data.partition(b"\r\n\r\n")
            if _ and (not head.startswith(b"HTTP/1.1 200") or b"\n\n" in rest):
                break  # the head of a refusal, or a 200 and its first event
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.startswith(b"HTTP/1.1 200")

def worker():
    while (index := take()) is not None:
        if index % 50 == 0:
            action(index)
        try:
            ok = stream(index)
        except OSError:
            ok = False
        with lock:
            counts["ok" if ok else "other"] += 1

started = time.monotonic()
workers = [threading.Thread(target=worker) for _ in range(threads)]
for w in workers: w.start()
for w in workers: w.join()
print(f"streams: {counts['ok'] + counts['other']} in {time.monotonic() - started:.1f}s, {counts['ok']} answered 200, {counts['other']} not")
print(f"ok={counts['ok']} total={counts['ok'] + counts['other']}")
PY

log "opening $streams patch streams, $threads at a time (at most ${seconds}s)"
budget=$((32 * 1024 * 1024))
# Read the gauge while the flood runs: it must stay within limits.patchHistoryBytes.
(while sleep 0.5; do metric hub_patch_history_bytes; done >"$WORK_TMP/history.txt") &
sampler=$!
track "$sampler"
timeout $((seconds + 30)) python3 "$WORK_TMP/flood.py" "$CHECK_PORT" "$session" "$streams" "$threads" "$seconds" \
    | tee "$WORK_TMP/flood.txt"
rss_after=$(rss_kib "$HUB_PID")
stop_pid "$sampler"
history_max=$(sort -n "$WORK_TMP/history.txt" | tail -n 1)
history_end=""
for _ in $(seq 1 60); do
    history_end=$(metric hub_patch_history_bytes)
    [ "$history_end" = "0" ] && break
    sleep 1
done
sleep 1
rss_settled=$(rss_kib "$HUB_PID")
ok_count=$(awk -F'[ =]' '/^ok=/{print $2}' "$WORK_TMP/flood.txt")
total=$(awk -F'[ =]' '/^ok=/{print $4}' "$WORK_TMP/flood.txt")
growth_kib=$((rss_after - rss_before))
echo "rss: $((rss_before / 1024)) MiB before, $((rss_after / 1024)) MiB after the streams, $((rss_settled / 1024)) MiB once they closed (growth $((growth_kib / 1024)) MiB, limit $max_growth_mib MiB)"
echo "hub_patch_history_bytes: at most ${history_max:-?} during the flood (budget $budget), ${history_end:-?} at the end"
status=0
[ "${total:-0}" -gt 0 ] && [ $((ok_count * 10)) -ge $((total * 9)) ] || { echo "too few streams answered 200"; status=1; }
[ "$growth_kib" -le $((max_growth_mib * 1024)) ] || { echo "RSS grew by more than $max_growth_mib MiB"; status=1; }
[ "$((rss_settled - rss_before))" -le $((max_growth_mib * 1024)) ] || { echo "RSS stayed up"; status=1; }
[ -n "$history_max" ] && [ "${history_max%.*}" -le "$budget" ] || { echo "the history passed its budget"; status=1; }
[ "$history_end" = "0" ] || { echo "the history was kept after the last listener left"; status=1; }
curl -sf "$base/view?session=$session" | grep -q 'flood' || { echo "the session's view is gone"; status=1; }
if [ "$status" -eq 0 ]; then echo "PASS: patch-streams"; else echo "FAIL: patch-streams"; exit 1; fi
