#!/usr/bin/env bash
# Hardening against the release binary, over real sockets on loopback: the inputs that once
# ended the process or grew its memory without bound. Each check prints PASS/FAIL.
#   - Accept-Language ';' and 'en,;' on /view?uri=, /view?session= and /action: answered, alive
#   - 3 000 random 2 KB method tokens and 300 random 20 KB action namespaces: /metrics stays small
#   - 1 500 todo:add on one session: RSS stays under 200 MiB
#   - a 1.5 MB view arrives over SSE
#   - stderr closed under load: the process keeps serving
#   - validate refuses out-of-range durations
#
#   Tests/system/robustness/hardening.sh          (not part of `make bench`)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
demo_setup '{ "host": "127.0.0.1", "log": { "level": "info" } }'
python3 - "$config" <<'PY'
import json, sys
rows = [{"id": f"r{i}", "text": {"title": "w" * 480}} for i in range(3000)]
json.dump({"body": rows}, open(f"{sys.argv[1]}/content/large.json", "w"))
json.dump({"id": "large", "title": "Large", "match": {"uri": "hub:large"},
           "operations": [{"kind": "static", "file": "content/large.json"}]}, open(f"{sys.argv[1]}/features/large.json", "w"))
PY

# The server's stderr is a FIFO whose reader we can close while it runs.
mkfifo "$WORK_TMP/stderr.fifo"
cat "$WORK_TMP/stderr.fifo" >"$WORK_TMP/hub.log" &
reader=$!
track "$reader"
require_ports "$CHECK_PORT"
HUB_PORT=$CHECK_PORT "$HUB_BIN" serve --config "$config" 2>"$WORK_TMP/stderr.fifo" >/dev/null &
HUB_PID=$!
track "$HUB_PID"
wait_url "http://127.0.0.1:$CHECK_PORT/health"
base="http://127.0.0.1:$CHECK_PORT"
alive() { curl -sf -o /dev/null --max-time 10 "$base/health"; }

# 1. Accept-Language
status=0
session=$(session_of "$base/view?uri=hub:todo")
for value in ';' 'en,;' ',' ';;' ' , ; '; do
    for url in "$base/view?uri=hub:todo" "$base/view?session=$session"; do
        code=$(curl -s -o /dev/null -w '%{http_code}' -H "Accept-Language: $value" "$url") || code=000
        [ "$code" = 200 ] || status=1
    done
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Accept-Language: $value" -H 'Content-Type: application/json' \
        -d "{\"session\":\"$session\",\"action\":\"todo:add\",\"custom\":{\"title\":\"x\"}}" "$base/action") || code=000
    [ "$code" = 200 ] || status=1
done
alive || status=1
check $status "Accept-Language edge cases answered 200 on view, session and action; the server lives"

# 2. Client-chosen labels
python3 - "$CHECK_PORT" "$session" <<'PY'
import json, random, socket, string, sys
port, session = int(sys.argv[1]), sys.argv[2]
def send(raw):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(raw)
    while s.recv(65536): pass
    s.close()
for i in range(3000):
    method = "".join(random.choice(string.ascii_uppercase) for _ in range(2000))
    send(f"{method} /view?uri=hub:home HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
for i in range(300):
    ns = "".join(random.choice(string.ascii_lowercase) for _ in range(20000))
    body = json.dumps({"session": session, "action": f"{ns}:go"}).encode()
    send(b"POST /action HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: "
         + str(len(body)).encode() + b"\r\n\r\n" + body)
PY
metrics_bytes=$(curl -s "$base/metrics" | wc -c)
echo "  /metrics after 3 000 random methods and 300 random namespaces: $metrics_bytes bytes"
[ "$metrics_bytes" -lt 65536 ]; check $? "random methods and action namespaces leave /metrics under 64 KiB"

# 3. 1 500 todo adds
todo=$(session_of "$base/view?uri=hub:todo")
for i in $(seq 1500); do
    curl -s -o /dev/null -H 'Content-Type: application/json' \
        -d "{\"session\":\"$todo\",\"action\":\"todo:add\",\"custom\":{\"title\":\"item $i $(printf 'x%.0s' {1..150})\"}}" "$base/action"
    [ $((i % 100)) = 0 ] && curl -s -o /dev/null "$base/view?session=$todo"
done
rss=$(( $(rss_kib "$HUB_PID") / 1024 ))
echo "  RSS after 1 500 todo:add: $rss MiB"
[ "$rss" -lt 200 ]; check $? "1 500 todo adds stay under 200 MiB RSS"

# 4. A 1.5 MB view over SSE
large=$(session_of "$base/view?uri=hub:large")
bytes=$(timeout 20 curl -sN --max-time 5 "$base/view/events?session=$large" | awk '/^data:/{print length($0) - 6; exit}') || true
echo "  first SSE event data: ${bytes:-0} bytes"
[ "${bytes:-0}" -gt 1500000 ]; check $? "a 1.5 MB view arrives over SSE"

# 5. stderr closed under load
kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null || true
timeout 20 wrk -t2 -c16 -d5s "$base/view?uri=hub:nothing-here" >"$WORK_TMP/wrk.txt" 2>&1 || true
kill -0 "$HUB_PID" 2>/dev/null && alive; check $? "stderr closed under load: the process keeps serving ($(awk '/requests in/{print $1}' "$WORK_TMP/wrk.txt") logged 404s sent)"

# 6. validate
bad="$WORK_TMP/bad"
cp -r "$REPO_DIR/Config" "$bad"
printf '{ "timeouts": { "drainSeconds": 1e300 } }\n' >"$bad/server.json"
if "$HUB_BIN" validate "$bad" >"$WORK_TMP/validate.txt" 2>&1; then status=1; else status=0; fi
grep -q 'drainSeconds' "$WORK_TMP/validate.txt" || status=1
check $status "validate refuses drainSeconds 1e300 ($(head -n 1 "$WORK_TMP/validate.txt"))"
checks_done
