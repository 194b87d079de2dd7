#!/usr/bin/env bash
# The state store on the write path: `todo:add` throughput and latency with the memory, SQLite
# and PostgreSQL backends side by side, then an action on replica A reaching an SSE listener of
# the same session on replica B (two replicas sharing PostgreSQL).
#
# For each backend: a release hub-server over a copy of the demo Config/, STATE_SESSIONS
# (default 2000) hub:todo sessions, then wrk (-t2 -c32, STATE_SECONDS, default 10) POSTing
# todo:add round-robin over their tokens (each list stays under its 100-item cap), in
# STATE_ROUNDS alternating rounds (default 2; medians). Every answer must be 200 with
# "performed": true. PostgreSQL is a throwaway cluster (initdb + pg_ctl in the temporary
# folder, a loopback port; as the postgres user when run as root), never the system service.
#
#   Benchmarks/state/todo-add.sh        (release build; not part of `make bench`)
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
sessions=${STATE_SESSIONS:-2000}
seconds=${STATE_SECONDS:-10}
rounds=${STATE_ROUNDS:-2}
PG_PORT=${PG_PORT:-18090}
REPLICA_B_PORT=${REPLICA_B_PORT:-18091}

bench_demo_setup
build_hub_server release  # always: the state store is new; a stale release binary would measure the old code

# A throwaway PostgreSQL cluster.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_dir="$WORK_TMP/pg"
mkdir -p "$pg_dir"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$pg_dir"
require_ports "$PG_PORT" "$REPLICA_B_PORT"
as_postgres "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w \
    -o "-p $PG_PORT -k $pg_dir -c listen_addresses=127.0.0.1 -c max_connections=100" start >/dev/null
stop_pg() { as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate -w stop >/dev/null 2>&1 || true; }
trap 'stop_pg; cleanup' EXIT
pg_url="postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
log "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT"

# start_backend NAME [PORT]: hub-server with that state backend (its own data directory).
start_backend() {
    local name=$1 port=${2:-$HUB_PORT_BENCH}
    mkdir -p "$WORK_TMP/data-$name"
    HUB_DATA_DIR="$WORK_TMP/data-$name" HUB_STATE_BACKEND=$name HUB_STATE_URL=$pg_url \
        start_hub "$config" "$port" "$WORK_TMP/hub-$name-$port.log"
}

# measure NAME -> "req/s p50_ms p99_ms non200"
measure() {
    local name=$1 base="http://127.0.0.1:$HUB_PORT_BENCH"
    start_backend "$name"
    open_sessions "$base/view?uri=hub:todo" "$sessions" >"$WORK_TMP/tokens"
    cat >"$WORK_TMP/todo.lua" <<LUA
local tokens, n = {}, 0
for line in io.lines("$WORK_TMP/tokens") do n = n + 1; tokens[n] = line end
local i, bad = 0, 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
    i = i % n + 1
    return wrk.format(nil, "/action", nil, '{"session":"' .. tokens[i] .. '","action":"todo:add","custom":{"title":"bench"}}')
end
response = function(status, headers, body)
    if status ~= 200 or not string.find(body, '"performed":true', 1, true) then bad = bad + 1 end
end
done = function(summary, latency, requests)
    io.write(string.format("RESULT %.1f %.3f %.3f\n", summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
LUA
    local out
    out=$(wrk -t2 -c32 -d"${seconds}s" --latency -s "$WORK_TMP/todo.lua" "$base" 2>&1)
    local non2xx
    non2xx=$(printf '%s\n' "$out" | awk '/Non-2xx/ {print $4}')
    local performed
    performed=$(hub_metric "$base" 'hub_actions_total{namespace="todo",outcome="not_performed"}')
    stop_pid "$HUB_PID"
    printf '%s %s %s\n' "$(printf '%s\n' "$out" | awk '/^RESULT/ {print $2, $3, $4}')" "${non2xx:-0}" "${performed:-0}"
}

declare -A rps p50 p99
for name in memory sqlite postgres; do rps[$name]=""; p50[$name]=""; p99[$name]=""; done
for ((round = 1; round <= rounds; round++)); do
    for name in memory sqlite postgres; do
        read -r r a b non2xx notperformed < <(measure "$name")
        log "round $round $name: $r req/s, p50 $a ms, p99 $b ms, non-2xx $non2xx, not performed $notperformed"
        if [ "$non2xx" != 0 ] || [ "${notperformed%.*}" != 0 ]; then echo "FAIL: $name had refused adds" >&2; exit 1; fi
        rps[$name]+="$r "; p50[$name]+="$a "; p99[$name]+="$b "
    done
done
echo
echo "| backend | todo:add req/s | p50 ms | p99 ms | vs memory |"
echo "|---|---|---|---|---|"
memory_rps=$(median ${rps[memory]})
for name in memory sqlite postgres; do
    r=$(median ${rps[$name]})
    printf '| %s | %s | %s | %s | %.2fx |\n' "$name" "$r" "$(median ${p50[$name]})" "$(median ${p99[$name]})" \
        "$(awk -v a="$r" -v b="$memory_rps" 'BEGIN {print a / b}')"
done
echo "(wrk -t2 -c32 -d${seconds}s, $sessions sessions, $rounds rounds, medians; load average $(load_average))"

# Replica A to a listener on replica B.
log "two replicas on PostgreSQL: 100 actions on A, one listener on B"
start_backend postgres "$HUB_PORT_BENCH"
pid_a=$HUB_PID
start_backend postgres "$REPLICA_B_PORT"
python3 "$(dirname "$0")/cross_replica.py" "$HUB_PORT_BENCH" "$REPLICA_B_PORT" 100
