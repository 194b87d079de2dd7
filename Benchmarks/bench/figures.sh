#!/usr/bin/env bash
# The other figures of docs/PERFORMANCE.md, each over HTTP against a release hub-server on
# 127.0.0.1 with the local Python upstream. Each figure starts and stops its own servers.
#
#   Benchmarks/bench/figures.sh [all|latency|upstream|sessions|idle]...
#
#   latency   three remote operations of 100 ms each -> view latency (20 views, target < 130 ms)
#   upstream  1 000 concurrent views, each with three remote operations on one upstream host:
#             upstream connections opened (upstream.maxConnectionsPerHost = 32)
#   sessions  memory with 100 000 sessions alive (GET /view?uri=hub:bench, sessions.max 200 000)
#   idle      10 000 idle keep-alive connections held: RSS, open connections, and the latency
#             of other clients meanwhile
# Needs the release hub-server (Benchmarks/run.sh builds it; so does `swift build -c release`).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cleanup_on_exit
ensure_tools
raise_nofile
[ -x "$HUB_BIN" ] || build_hub_server release

port=$HUB_PORT_BENCH
base="http://127.0.0.1:$port"

# A copy of the bench config with two more features: three slow remote operations, and three
# fast ones with a distinct URL per view (no coalescing, no caching: the upstream says no-store).
make_config() {
    local dir=$WORK_TMP/config
    cp -r "$BENCH_DIR/config" "$dir"
    # 1 000 concurrent views queue 3 000 fetches behind 32 connections to a Python upstream:
    # give them 10 s (upstream.timeoutMs, timeouts.operationSeconds) instead of 2.
    python3 - "$dir/server.json" <<'PY'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
settings["upstream"]["timeoutMs"] = 10000
settings.setdefault("timeouts", {})["operationSeconds"] = 10
json.dump(settings, open(path, "w"), indent=1)
PY
    cat >"$dir/features/three.json" <<'JSON'
{ "id": "three", "title": "Three", "match": { "root": "hub:three" },
  "operations": [ { "kind": "remote", "url": "http://127.0.0.1:18081/slow/1?ms=100&v={query.v}" },
                  { "kind": "remote", "url": "http://127.0.0.1:18081/slow/2?ms=100&v={query.v}" },
                  { "kind": "remote", "url": "http://127.0.0.1:18081/slow/3?ms=100&v={query.v}" } ] }
JSON
    cat >"$dir/features/many.json" <<'JSON'
{ "id": "many", "title": "Many", "match": { "root": "hub:many" },
  "operations": [ { "kind": "remote", "url": "http://127.0.0.1:18081/fast/1?v={query.v}" },
                  { "kind": "remote", "url": "http://127.0.0.1:18081/fast/2?v={query.v}" },
                  { "kind": "remote", "url": "http://127.0.0.1:18081/fast/3?v={query.v}" } ] }
JSON
    echo "$dir"
}

start_servers() {
    work_tmp bench
    start_upstream 900
    start_hub "$(make_config)" "$port" "$WORK_TMP/hub.log"
}

stop_servers() { cleanup; }

metric() { # name -> value summed over label sets
    curl -sf "$base/metrics" | awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $2 } END { printf "%d\n", s }'
}

json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }

figure_latency() {
    echo "== three remote operations of 100 ms each -> view latency"
    start_servers
    python3 "$BENCH_DIR/loadclient.py" requests --port "$port" --path-template '/view?uri=hub:three%3Fv%3Dwarm{i}' \
        --count 2 --concurrency 1 >/dev/null
    local result
    result=$(python3 "$BENCH_DIR/loadclient.py" requests --port "$port" --path-template '/view?uri=hub:three%3Fv%3D{i}' \
        --count 20 --concurrency 1)
    echo "$result" | json_field '"20 sequential views: p50 %.1f ms, max %.1f ms, statuses %s (sequential operations would take 300 ms)" % (d["p50_ms"], d["max_ms"], d["statuses"])'
    local p50
    p50=$(echo "$result" | json_field 'd["p50_ms"]')
    python3 -c "import sys; p=float(sys.argv[1]); print('target < 130 ms:', 'met' if p < 130 else 'NOT met')" "$p50"
    echo "Server-Timing of one view: $(curl -s -D- -o /dev/null "$base/view?uri=hub:three%3Fv%3Dtiming" | tr -d '\r' | awk -F': ' 'tolower($1)=="server-timing"{print $2}')"
    stop_servers
}

figure_upstream() {
    echo "== upstream connections opened for 1 000 views (3 remote operations each, one host, cap 32)"
    start_servers
    curl -sf "http://127.0.0.1:$UPSTREAM_PORT/stats?reset=1" >/dev/null
    local before after result stats
    before=$(metric hub_upstream_connections_opened_total)
    result=$(python3 "$BENCH_DIR/loadclient.py" requests --port "$port" --path-template '/view?uri=hub:many%3Fv%3D{i}' \
        --count 1000 --concurrency 1000 --timeout 30 --max-seconds 120)
    after=$(metric hub_upstream_connections_opened_total)
    stats=$(curl -sf "http://127.0.0.1:$UPSTREAM_PORT/stats")
    echo "$result" | json_field '"1000 views over 1000 client connections: %.2f s, statuses %s, client errors %d" % (d["seconds"], d["statuses"], d["errors"])'
    echo "upstream connections opened (hub_upstream_connections_opened_total): $((after - before)); the upstream saw: $stats"
    stop_servers
}

figure_sessions() {
    echo "== memory with 100 000 sessions alive"
    start_servers
    local url="$base/view?uri=hub:bench" rss0 rss1 sessions0 sessions1
    for _ in 1 2 3; do curl -sf -o /dev/null "$url"; done
    sleep 0.5
    rss0=$(rss_kib "$HUB_PID")
    sessions0=$(curl -sf "$base/health" | json_field 'd["sessions"]')
    # 2 threads x 50 000 responses each (the Lua script stops each thread at its limit).
    cat >"$WORK_TMP/limit.lua" <<'LUA'
local done = 0
function response(status, headers, body)
    done = done + 1
    if done >= 50000 then wrk.thread:stop() end
end
LUA
    timeout 120 wrk -t2 -c16 -d60s -s "$WORK_TMP/limit.lua" "$url" >"$WORK_TMP/wrk.txt" 2>&1 || true
    sleep 0.5
    rss1=$(rss_kib "$HUB_PID")
    sessions1=$(curl -sf "$base/health" | json_field 'd["sessions"]')
    local added=$((sessions1 - sessions0))
    echo "sessions alive: $sessions1 (+$added); RSS $((rss0 / 1024)) MiB -> $((rss1 / 1024)) MiB:" \
        "$(( (rss1 - rss0) * 1024 / (added > 0 ? added : 1) )) bytes per session (RSS delta / sessions added)"
    echo "(sessions share the memoized view model; a session keeps its id, state and LRU links)"
    stop_servers
}

figure_idle() {
    echo "== 10 000 idle keep-alive connections held"
    start_servers
    local url="$base/view?uri=hub:bench" ready="$WORK_TMP/ready" rss0 rss1 open
    for _ in 1 2 3; do curl -sf -o /dev/null "$url"; done
    timeout 20 wrk -t2 -c32 -d4s --latency "$url" >"$WORK_TMP/before.txt" 2>&1
    rss0=$(rss_kib "$HUB_PID")
    python3 "$BENCH_DIR/loadclient.py" hold --port "$port" --path /health --connections 10000 --seconds 90 \
        --ready "$ready" >"$WORK_TMP/hold.json" &
    local holder=$!
    track "$holder"
    for _ in $(seq 600); do [ -s "$ready" ] && break; sleep 0.1; done
    [ -s "$ready" ] || { echo "the client did not open its connections in 60 s" >&2; return 1; }
    sleep 1
    rss1=$(rss_kib "$HUB_PID")
    open=$(metric hub_open_connections)
    timeout 20 wrk -t2 -c32 -d4s --latency "$url" >"$WORK_TMP/during.txt" 2>&1
    rm -f "$ready"
    wait "$holder" || true
    echo "held: $(cat "$WORK_TMP/hold.json")"
    echo "hub_open_connections while held: $open; RSS $((rss0 / 1024)) MiB -> $((rss1 / 1024)) MiB" \
        "($(( (rss1 - rss0) * 1024 / 10000 )) bytes per idle connection)"
    python3 - "$WORK_TMP/before.txt" "$WORK_TMP/during.txt" <<'PY'
import re, sys
def read(path):
    text = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p = {k: re.search(r"^\s+%s%%\s+(\S+)" % k, text, re.M).group(1) for k in ("50", "99")}
    return rps, p
for name, path in (("before", sys.argv[1]), ("while 10 000 idle are held", sys.argv[2])):
    rps, p = read(path)
    print(f"  other clients, wrk -c32 4 s, {name}: {rps:,.0f} req/s, p50 {p['50']}, p99 {p['99']}")
PY
    stop_servers
}

figures=("$@")
[ ${#figures[@]} -eq 0 ] && figures=(all)
[ "${figures[0]}" = all ] && figures=(latency upstream sessions idle)
echo "load before: $(load_average)"
for figure in "${figures[@]}"; do
    "figure_$figure"
    echo
done
echo "load after: $(load_average)"
