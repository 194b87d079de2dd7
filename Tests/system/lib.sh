# The shell library of the system checks (Tests/system/: deploy, robustness, the README check)
# and of the benchmarks (Benchmarks/bench/lib.sh sources it): what every script that runs a
# real hub-server repeats. Source it from bash with `set -euo pipefail`. Everything it starts
# listens on 127.0.0.1 only and is stopped by PID on exit (`cleanup`, installed as the EXIT trap
# by `cleanup_on_exit`).
#
#   processes  cleanup_on_exit, track PID, forget_pid PID, stop_pid PID, cleanup, work_tmp [NAME]
#   ports      free_port, port_free PORT, require_ports PORT..., wait_url URL [SECONDS]
#   tools      ensure_tools [COMMAND...] (installs the Debian packages of that name), raise_nofile
#   hub-server use_hub_server debug|release, build_hub_server debug|release,
#              start_hub CONFIG [PORT] [LOG], session_of URL [CURL_ARG...], rss_kib PID, load_average
#   verdicts   pass TEXT, fail TEXT, check STATUS TEXT, checks_done
#   robustness robustness_setup UPSTREAM_SECONDS, start_bench_hub CONFIG_DIR [LOG], demo_setup SERVER_JSON,
#              start_upstream [SECONDS]
#   replicas   replicas_setup, start_counter, write_config, start_replica(s), stop_replica,
#              each_balancer, ...

SYSTEM_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SYSTEM_DIR/../.." && pwd)"
# The benchmarks' tools the robustness checks reuse: the Python upstream (upstream.py, on
# UPSTREAM_PORT, which the robustness and bench configs name), loadclient.py and report.py.
BENCH_DIR="$REPO_DIR/Benchmarks/bench"
UPSTREAM_PORT=18081

STARTED_PIDS=()     # every process started here but the replicas
REPLICA_PIDS=()     # by replica index 0..2 (empty when stopped)
REPLICA_PORTS=()
WORK_TMP=""         # the run's temporary folder (work_tmp), removed on exit unless KEEP_TMP is set
CHECK_STATUS=0      # 1 once any `fail`

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------------------- processes

# cleanup_on_exit: `cleanup` on exit; interrupted or terminated, exit (so that it runs).
cleanup_on_exit() {
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# work_tmp [NAME]: a fresh temporary folder in WORK_TMP (call it directly, not in $(...)).
work_tmp() {
    WORK_TMP=$(mktemp -d "/tmp/hub-${1:-check}.XXXXXX")
    chmod 755 "$WORK_TMP"
}

track() { STARTED_PIDS+=("$1"); }

# forget_pid PID: a process that was waited for is no longer ours to stop.
forget_pid() {
    local keep=() pid
    for pid in "${STARTED_PIDS[@]:-}"; do [ -n "$pid" ] && [ "$pid" != "$1" ] && keep+=("$pid"); done
    STARTED_PIDS=("${keep[@]:-}")
}

# stop_pid PID: stops a process started here (SIGTERM) and waits for it.
stop_pid() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    forget_pid "$1"
}

# cleanup: stops every process started here (replicas included), removes WORK_TMP.
cleanup() {
    local pid
    for pid in "${REPLICA_PIDS[@]:-}" "${STARTED_PIDS[@]:-}"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    for pid in "${REPLICA_PIDS[@]:-}" "${STARTED_PIDS[@]:-}"; do
        [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
    done
    if [ -n "$WORK_TMP" ] && [ -z "${KEEP_TMP:-}" ]; then rm -rf "$WORK_TMP"; fi
    STARTED_PIDS=()
    REPLICA_PIDS=()
    WORK_TMP=""
    return 0
}

# ---------------------------------------------------------------------------- ports

# free_port: a port nobody listens on now (bound and released by the kernel's choice).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

require_ports() {
    local port
    for port in "$@"; do
        port_free "$port" || { echo "port $port on 127.0.0.1 is in use: stop what listens there" >&2; exit 2; }
    done
}

# wait_url URL [SECONDS]: polls (0.1 s apart) until URL answers 2xx, for at most SECONDS (60).
wait_url() {
    local url=$1 seconds=${2:-60} i
    for ((i = 0; i < seconds * 10; i++)); do
        curl -sf -o /dev/null --max-time 2 "$url" && return 0
        sleep 0.1
    done
    echo "no answer from $url within $seconds s" >&2
    return 1
}

# ---------------------------------------------------------------------------- tools

# ensure_tools [COMMAND...]: installs the Debian package of each missing command (default: wrk,
# nginx and curl, what the load checks and benchmarks use); python3 must be there.
ensure_tools() {
    local missing="" tool tools=("$@")
    [ ${#tools[@]} -gt 0 ] || tools=(wrk nginx curl)
    for tool in "${tools[@]}"; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
    if [ -n "$missing" ]; then
        log "installing:$missing"
        local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
    fi
    command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 2; }
}

# raise_nofile: the open-file limit up (10 000 idle connections, 100 000 sessions need it).
raise_nofile() {
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

# ---------------------------------------------------------------------------- hub-server

# build_hub_server debug|release: builds hub-server and sets HUB_BIN to it.
build_hub_server() {
    log "building hub-server ($1)"
    (cd "$REPO_DIR" && swift build -c "$1" --product hub-server 2>&1 | tail -n 3)
    HUB_BIN="$REPO_DIR/.build/$1/hub-server"
}

# use_hub_server debug|release: HUB_BIN as given, or that build (built when missing).
use_hub_server() {
    HUB_BIN=${HUB_BIN:-$REPO_DIR/.build/$1/hub-server}
    [ -x "$HUB_BIN" ] || build_hub_server "$1"
}

# start_hub CONFIG [PORT] [LOG]: $HUB_BIN serving CONFIG on 127.0.0.1:PORT (a free port when
# none is given; HUB_LOG_LEVEL_CHECK, default warning), waited for on /health. Sets HUB_PID,
# HUB_PORT_USED and HUB_URL.
start_hub() {
    local config=$1 port=${2:-} logfile=${3:-$WORK_TMP/hub.log}
    if [ -n "$port" ]; then require_ports "$port"; else port=$(free_port); fi
    # A data directory of the run's own unless the caller chose one (the working tree's
    # .hub-data is the demo's, and a server another check left running may hold it).
    HUB_DATA_DIR=${HUB_DATA_DIR:-${WORK_TMP:+$WORK_TMP/data}} \
    HUB_HOST=127.0.0.1 HUB_LOG_LEVEL=${HUB_LOG_LEVEL_CHECK:-warning} HUB_PORT=$port \
        "$HUB_BIN" serve --config "$config" >>"$logfile" 2>&1 &
    HUB_PID=$!
    track "$HUB_PID"
    HUB_PORT_USED=$port
    HUB_URL="http://127.0.0.1:$port"
    wait_url "$HUB_URL/health" || { tail -n 20 "$logfile" >&2; return 1; }
}

# session_of URL [CURL_ARG...]: opens a session (sending the curl arguments too, such as a
# client's headers) and prints its token (the Hub-Session header).
session_of() {
    curl -s -D- -o /dev/null "${@:2}" "$1" | tr -d '\r' | awk -F': ' 'tolower($1)=="hub-session"{print $2}'
}

rss_kib() { awk '/^VmRSS:/{print $2}' "/proc/$1/status"; }

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# ---------------------------------------------------------------------------- verdicts

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; CHECK_STATUS=1; }
# check STATUS TEXT: PASS when STATUS is 0, FAIL otherwise.
check() { if [ "$1" = 0 ]; then pass "$2"; else fail "$2"; fi; }
checks_done() { exit "$CHECK_STATUS"; }

# ---------------------------------------------------------------------------- robustness

# start_upstream [MAX_SECONDS [ARG...]]: the benchmarks' Python upstream on UPSTREAM_PORT (ARGs
# passed on, e.g. --files DIR).
start_upstream() {
    require_ports "$UPSTREAM_PORT"
    python3 "$BENCH_DIR/upstream.py" "$UPSTREAM_PORT" --max-seconds "${1:-3600}" "${@:2}" &
    UPSTREAM_PID=$!
    track "$UPSTREAM_PID"
    wait_url "http://127.0.0.1:$UPSTREAM_PORT/stats"
}

# robustness_setup UPSTREAM_SECONDS: the common start of the robustness checks on a release
# build: tools, file limits, hub-server built, a temporary folder cleaned up on exit, a free
# port for the server (CHECK_PORT), and the upstream running for that long.
robustness_setup() {
    cleanup_on_exit
    ensure_tools
    raise_nofile
    use_hub_server release
    work_tmp robustness
    CHECK_PORT=$(free_port)
    start_upstream "$1"
}

# start_bench_hub CONFIG_DIR [LOG]: hub-server on CHECK_PORT over CONFIG_DIR, its bench view
# (hub:bench) requested three times (warm); sets `base` (its URL).
start_bench_hub() {
    start_hub "$1" "$CHECK_PORT" "${2:-$WORK_TMP/hub.log}"
    base="http://127.0.0.1:$CHECK_PORT"
    for _ in 1 2 3; do curl -sf -o /dev/null "$base/view?uri=hub:bench"; done
}

# demo_setup SERVER_JSON: the same without the upstream, and a copy of the demo Config/ in
# $WORK_TMP/config with SERVER_JSON as its server.json (sets `config`).
demo_setup() {
    cleanup_on_exit
    ensure_tools
    use_hub_server release
    work_tmp robustness
    CHECK_PORT=$(free_port)
    config="$WORK_TMP/config"
    cp -r "$REPO_DIR/Config" "$config"
    printf '%s\n' "$1" >"$config/server.json"
}

# ---------------------------------------------------------------------------- replicas
# Three hub-server replicas behind the shipped balancer configs on loopback (deploy/replicas.sh,
# robustness/replicas.sh, robustness/rolling-restart.sh), on ports chosen free.

# replicas_setup DELAY_MS: the common start of the robustness runs with replicas: file limits,
# a release build, cleanup on exit, a temporary folder, the counter upstream answering DELAY_MS
# late (requests are in flight at any moment).
replicas_setup() {
    raise_nofile
    build_hub_server release
    cleanup_on_exit
    work_tmp replicas
    start_counter 600 "$1"
}

# start_counter [MAX_SECONDS] [DELAY_MS]: the durable-state upstream (deploy/counter_upstream.py)
# on COUNTER_PORT, answering DELAY_MS late (default 0).
start_counter() {
    COUNTER_PORT=$(free_port)
    python3 "$SYSTEM_DIR/deploy/counter_upstream.py" "$COUNTER_PORT" --max-seconds "${1:-900}" --delay-ms "${2:-0}" &
    track $!
    wait_url "http://127.0.0.1:$COUNTER_PORT/stats"
}

# write_config SERVER_JSON: the demo Config/ plus the counter feature and action (state in the
# counter upstream, keyed by the session id), with SERVER_JSON, in $WORK_TMP/config.
write_config() {
    local config="$WORK_TMP/config"
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
    HUB_SESSION_KEYS=$REPLICA_SESSION_KEYS HUB_DATA_DIR="$WORK_TMP/data-$index" \
    HUB_HOST=127.0.0.1 HUB_PORT=${REPLICA_PORTS[$index]} HUB_LOG_LEVEL=${HUB_LOG_LEVEL_REPLICAS:-warning} \
        "$HUB_BIN" serve --config "$REPLICA_CONFIG" >>"$WORK_TMP/replica-$index.log" 2>&1 &
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

# start_nginx_balancer: deploy/nginx/hubserver.conf for the replicas (balancer_config.py), in
# the foreground (daemon off) with its own prefix; sets BALANCER_PORT, NGINX_PID.
start_nginx_balancer() {
    local prefix
    prefix=$(mktemp -d "$WORK_TMP/nginx.XXXXXX")
    mkdir -p "$prefix/logs" "$prefix/tmp"
    chmod 755 "$prefix"
    BALANCER_PORT=$(free_port)
    python3 "$SYSTEM_DIR/deploy/balancer_config.py" nginx --listen "$BALANCER_PORT" --servers "$(ports_csv)" \
        --prefix "$prefix" "$@" >"$prefix/nginx.conf"
    nginx -p "$prefix" -c nginx.conf -e "$prefix/logs/error.log" -g "daemon off; pid $prefix/logs/nginx.pid;" &
    NGINX_PID=$!
    track "$NGINX_PID"
    wait_url "http://127.0.0.1:$BALANCER_PORT/health" || { cat "$prefix/logs/error.log" >&2; return 1; }
}

# start_haproxy_balancer [--check-inter-ms MS]: deploy/haproxy/haproxy.cfg for the replicas, in
# the foreground (-db); sets BALANCER_PORT, HAPROXY_PID. Waits for /health unless
# HAPROXY_NO_WAIT is set (no replica left to answer it).
start_haproxy_balancer() {
    BALANCER_PORT=$(free_port)
    python3 "$SYSTEM_DIR/deploy/balancer_config.py" haproxy --listen "$BALANCER_PORT" --servers "$(ports_csv)" "$@" \
        >"$WORK_TMP/haproxy-$BALANCER_PORT.cfg"
    haproxy -db -f "$WORK_TMP/haproxy-$BALANCER_PORT.cfg" >>"$WORK_TMP/haproxy.log" 2>&1 &
    HAPROXY_PID=$!
    track "$HAPROXY_PID"
    [ -n "${HAPROXY_NO_WAIT:-}" ] && return 0
    wait_url "http://127.0.0.1:$BALANCER_PORT/health" || { cat "$WORK_TMP/haproxy.log" >&2; return 1; }
}

# haproxy_available: whether haproxy is installed. Without it a HAProxy run is skipped with a
# note, or fails under HUB_REQUIRE_HAPROXY=1 (`make test` sets it: CI never skips it silently).
haproxy_available() {
    command -v haproxy >/dev/null && return 0
    if [ "${HUB_REQUIRE_HAPROXY:-0}" = 1 ]; then
        fail "haproxy is not installed and HUB_REQUIRE_HAPROXY=1 (make deps-deploy installs it)"
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
    start_nginx_balancer
    "$run" nginx
    stop_pid "$NGINX_PID"
    haproxy_available || return 0
    start_haproxy_balancer "$@"
    "$run" haproxy
    stop_pid "$HAPROXY_PID"
}
