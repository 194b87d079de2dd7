# Helpers for running HubServer replicas behind the shipped balancer configs on loopback:
# deploy/test-replicas.sh (make test-deploy), Benchmarks/robustness/replicas.sh and
# rolling-restart.sh. Source from bash with `set -euo pipefail`, after setting HUB_BIN.
# Everything listens on 127.0.0.1 only, on ports chosen free, and is stopped by PID on exit
# (replicas_cleanup, installed as the EXIT trap by replicas_init).

TESTING_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$TESTING_DIR/../.." && pwd)"

REPLICA_PIDS=()     # by replica index 0..2 (empty when stopped)
REPLICA_PORTS=()
OTHER_PIDS=()       # counter upstream, balancers
REPLICAS_TMP=""

replicas_log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# use_release_build: HUB_BIN is the release hub-server, built now (the robustness scripts).
use_release_build() {
    HUB_BIN="$REPO_DIR/.build/release/hub-server"
    replicas_log "building hub-server (release)"
    (cd "$REPO_DIR" && swift build -c release --product hub-server 2>&1 | tail -n 1)
}

# replicas_init: a temporary folder (REPLICAS_TMP) and the cleanup trap.
replicas_init() {
    REPLICAS_TMP=$(mktemp -d /tmp/hub-replicas.XXXXXX)
    chmod 755 "$REPLICAS_TMP"
    trap replicas_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

replicas_cleanup() {
    local pid
    for pid in "${REPLICA_PIDS[@]:-}" "${OTHER_PIDS[@]:-}"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    for pid in "${REPLICA_PIDS[@]:-}" "${OTHER_PIDS[@]:-}"; do
        [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
    done
    if [ -n "$REPLICAS_TMP" ] && [ -z "${KEEP_TMP:-}" ]; then rm -rf "$REPLICAS_TMP"; fi
    return 0
}

# free_port: a port nobody listens on now (bound and released by the kernel's choice).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_url URL [SECONDS]: polls until URL answers 200.
wait_url() {
    local url=$1 seconds=${2:-60} i
    for ((i = 0; i < seconds * 10; i++)); do
        curl -sf -o /dev/null --max-time 2 "$url" && return 0
        sleep 0.1
    done
    echo "no answer from $url within $seconds s" >&2
    return 1
}

# start_counter [MAX_SECONDS] [DELAY_MS]: the durable-state upstream (counter_upstream.py) on
# COUNTER_PORT, answering DELAY_MS late (default 0).
start_counter() {
    COUNTER_PORT=$(free_port)
    python3 "$TESTING_DIR/counter_upstream.py" "$COUNTER_PORT" --max-seconds "${1:-900}" --delay-ms "${2:-0}" &
    OTHER_PIDS+=($!)
    wait_url "http://127.0.0.1:$COUNTER_PORT/stats"
}

# write_config SERVER_JSON: the demo Config/ plus the counter feature and action (state in the
# counter upstream, keyed by the session id), with SERVER_JSON, in $REPLICAS_TMP/config.
write_config() {
    local config="$REPLICAS_TMP/config"
    rm -rf "$config"
    cp -r "$REPO_DIR/Config" "$config"
    printf '%s\n' "$1" >"$config/server.json"
    # Every test client is the one address 127.0.0.1 (through the balancer too): HubServer's
    # per-client session limit is raised so far that it never triggers, as the balancers' are
    # (balancer_config.py); the limit itself is tested by the Swift suite.
    python3 - "$config/server.json" <<'PY'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
settings.setdefault("limits", {}).setdefault("sessionsPerClient", {"perSecond": 1000000, "burst": 1000000})
json.dump(settings, open(path, "w"))
PY
    cat >"$config/features/counter.json" <<JSON
{ "id": "counter", "title": "Counter", "match": { "uri": "hub:counter" },
  "operations": [ { "kind": "remote", "url": "http://127.0.0.1:$COUNTER_PORT/count/{session}",
                    "rescheduleOn": ["counter:add"] } ] }
JSON
    cat >"$config/actions.json" <<JSON
{ "todo": { "kind": "swift", "name": "todo" },
  "counter": { "kind": "remote", "url": "http://127.0.0.1:$COUNTER_PORT/actions/{action.name}", "timeoutMs": 5000 } }
JSON
    "$HUB_BIN" validate "$config" >/dev/null
    REPLICA_CONFIG=$config
}

# start_replica INDEX: hub-server INDEX on REPLICA_PORTS[INDEX] (chosen on first start, kept
# across restarts, as a balancer's server list needs).
start_replica() {
    local index=$1
    [ -n "${REPLICA_PORTS[$index]:-}" ] || REPLICA_PORTS[$index]=$(free_port)
    # The replicas share their session keys, as in production (docs/SESSIONS.md).
    : "${REPLICA_SESSION_KEYS:=$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"
    HUB_SESSION_KEYS=$REPLICA_SESSION_KEYS HUB_DATA_DIR="$REPLICAS_TMP/data-$index" \
    HUB_HOST=127.0.0.1 HUB_PORT=${REPLICA_PORTS[$index]} HUB_LOG_LEVEL=${HUB_LOG_LEVEL_REPLICAS:-warning} \
        "$HUB_BIN" serve --config "$REPLICA_CONFIG" >>"$REPLICAS_TMP/replica-$index.log" 2>&1 &
    REPLICA_PIDS[$index]=$!
    wait_url "http://127.0.0.1:${REPLICA_PORTS[$index]}/ready"
}

start_replicas() {
    local index
    for index in 0 1 2; do start_replica "$index"; done
}

# stop_replica INDEX SIGNAL [SECONDS]: signals it and waits (SECONDS, default 60) for it to exit;
# sets STOP_CODE to its exit status. (Not in a subshell: only this shell can wait for it.)
stop_replica() {
    local index=$1 signal=$2 seconds=${3:-60} pid=${REPLICA_PIDS[$1]} i
    STOP_CODE=0
    kill "-$signal" "$pid"
    for ((i = 0; i < seconds * 10; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        echo "replica $index still running $seconds s after SIG$signal: killing it" >&2
        kill -KILL "$pid"
    fi
    wait "$pid" || STOP_CODE=$?
    REPLICA_PIDS[$index]=""
}

ports_csv() { local IFS=,; echo "${REPLICA_PORTS[*]}"; }

# start_nginx: deploy/nginx/hubserver.conf for the replicas (balancer_config.py),
# in the foreground (daemon off) with its own prefix; sets BALANCER_PORT, NGINX_PREFIX.
start_nginx() {
    NGINX_PREFIX=$(mktemp -d "$REPLICAS_TMP/nginx.XXXXXX")
    mkdir -p "$NGINX_PREFIX/logs" "$NGINX_PREFIX/tmp"
    chmod 755 "$NGINX_PREFIX"
    BALANCER_PORT=$(free_port)
    python3 "$TESTING_DIR/balancer_config.py" nginx --listen "$BALANCER_PORT" --servers "$(ports_csv)" \
        --prefix "$NGINX_PREFIX" "$@" >"$NGINX_PREFIX/nginx.conf"
    nginx -p "$NGINX_PREFIX" -c nginx.conf -e "$NGINX_PREFIX/logs/error.log" \
        -g "daemon off; pid $NGINX_PREFIX/logs/nginx.pid;" &
    NGINX_PID=$!
    OTHER_PIDS+=($NGINX_PID)
    wait_url "http://127.0.0.1:$BALANCER_PORT/health" || { cat "$NGINX_PREFIX/logs/error.log" >&2; return 1; }
}

# start_haproxy [--check-inter-ms MS]: deploy/haproxy/haproxy.cfg for the replicas, in the
# foreground (-db); sets BALANCER_PORT.
start_haproxy() {
    BALANCER_PORT=$(free_port)
    python3 "$TESTING_DIR/balancer_config.py" haproxy --listen "$BALANCER_PORT" --servers "$(ports_csv)" "$@" \
        >"$REPLICAS_TMP/haproxy.cfg"
    haproxy -db -f "$REPLICAS_TMP/haproxy.cfg" >>"$REPLICAS_TMP/haproxy.log" 2>&1 &
    HAPROXY_PID=$!
    OTHER_PIDS+=($HAPROXY_PID)
    wait_url "http://127.0.0.1:$BALANCER_PORT/health" || { cat "$REPLICAS_TMP/haproxy.log" >&2; return 1; }
}

# haproxy_available: whether haproxy is installed. Without it a HAProxy run is skipped with a
# note, or fails under HUB_REQUIRE_HAPROXY=1 (`make test` sets it: CI never skips it silently).
haproxy_available() {
    command -v haproxy >/dev/null && return 0
    if [ "${HUB_REQUIRE_HAPROXY:-0}" = 1 ]; then
        echo "FAIL haproxy is not installed and HUB_REQUIRE_HAPROXY=1 (make deps-deploy installs it)"
        status=1
    else
        echo "note: haproxy is not installed: the HAProxy run is skipped (make deps-deploy installs it)"
    fi
    return 1
}

# each_balancer RUN [START_HAPROXY_ARGS...]: `RUN nginx` behind nginx, then `RUN haproxy` behind
# HAProxy (when haproxy_available), each balancer started before its run and stopped after.
each_balancer() {
    local run=$1
    shift
    start_nginx
    "$run" nginx
    stop_balancer "$NGINX_PID"
    haproxy_available || return 0
    start_haproxy "$@"
    "$run" haproxy
    stop_balancer "$HAPROXY_PID"
}

# stop_balancer PID: stops nginx or haproxy started above.
stop_balancer() {
    local pid=$1 keep=() other
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for other in "${OTHER_PIDS[@]:-}"; do [ -n "$other" ] && [ "$other" != "$pid" ] && keep+=("$other"); done
    OTHER_PIDS=("${keep[@]:-}")
}
