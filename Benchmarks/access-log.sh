#!/usr/bin/env bash
# What the access log costs: one release hub-server per log.access mode, wrk on loopback
# against GET /view?session=S (the cheapest view path), stderr to a file whose size is the
# log volume. Prints requests/s, p99 latency and log bytes per request for each mode.
#   Benchmarks/access-log.sh [SECONDS] [CONNECTIONS]     (defaults 10 and 32)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
conns=${2:-32}
bin=.build/release/hub-server
[ -x "$bin" ] || swift build -c release --product hub-server
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=18931
printf '%-34s %10s %10s %14s\n' mode "req/s" "p99" "log B/req"
for mode in '{"mode":"all"}' '{"mode":"errors"}' '{"mode":"sampled","sampleRatio":0.01}' '{"mode":"off"}'; do
    config="$work/config"
    rm -rf "$config" && cp -r Config "$config"
    python3 - "$config/server.json" "$mode" "$port" <<'PY'
import json, sys
path, mode, port = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
settings = json.load(open(path))
settings["host"], settings["port"] = "127.0.0.1", port
settings["log"] = {"level": "info", "format": "json", "access": mode}
json.dump(settings, open(path, "w"))
PY
    HUB_CONFIG="$config" "$bin" serve 2>"$work/log" &
    server=$!
    for _ in $(seq 50); do curl -fs "localhost:$port/ready" >/dev/null 2>&1 && break; sleep 0.1; done
    session=$(curl -s -D- -o /dev/null "localhost:$port/view?uri=hub:food" | tr -d '\r' | awk -F': ' 'tolower($1)=="hub-session"{print $2}')
    before=$(stat -c %s "$work/log")
    timeout $((seconds + 30)) wrk -t1 -c"$conns" -d"${seconds}s" --latency "http://127.0.0.1:$port/view?session=$session" >"$work/wrk"
    after=$(stat -c %s "$work/log")
    kill "$server"; wait "$server" 2>/dev/null || true
    requests=$(awk '/requests in/{print $1}' "$work/wrk")
    rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk")
    p99=$(awk '$1=="99%"{print $2}' "$work/wrk")
    printf '%-34s %10s %10s %14s\n' "$mode" "$rps" "$p99" "$(( (after - before) / (requests > 0 ? requests : 1) ))"
done
