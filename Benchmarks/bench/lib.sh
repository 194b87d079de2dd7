# Shared helpers of Benchmarks/run.sh, Benchmarks/bench/*.sh and Benchmarks/robustness/*.sh.
# Source it from bash with `set -euo pipefail`. Every server it starts listens on 127.0.0.1
# only and is stopped by PID on exit (bench_cleanup, installed as the EXIT trap).

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/../.." && pwd)"
HB_DIR="$REPO_DIR/Benchmarks/HummingbirdApp"
HUB_BIN="$REPO_DIR/.build/release/hub-server"
HB_BIN="$HB_DIR/.build/release/HummingbirdBench"

# Fixed loopback ports (the bench config names the upstream's); override the others with env.
HUB_PORT_BENCH=${HUB_PORT_BENCH:-18080}
UPSTREAM_PORT=18081
NGINX_PORT=${NGINX_PORT:-18082}
HB_PORT=${HB_PORT:-18083}

BENCH_PIDS=()
BENCH_TMP=""
NGINX_PREFIX=""
# Interrupted or terminated: exit, so that the EXIT trap (bench_cleanup) stops our servers.
trap 'exit 130' INT
trap 'exit 143' TERM

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# A fresh temporary folder in BENCH_TMP (call it directly, not in $(...)).
bench_init_tmp() {
    BENCH_TMP=$(mktemp -d /tmp/hub-bench.XXXXXX)
    chmod 755 "$BENCH_TMP"
}

bench_cleanup() {
    local pid
    for pid in "${BENCH_PIDS[@]:-}"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    if [ -n "$NGINX_PREFIX" ] && [ -f "$NGINX_PREFIX/logs/nginx.pid" ]; then
        nginx -p "$NGINX_PREFIX" -c nginx.conf -s stop 2>/dev/null || true
    fi
    for pid in "${BENCH_PIDS[@]:-}"; do
        [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
    done
    [ -n "$BENCH_TMP" ] && rm -rf "$BENCH_TMP"
    BENCH_PIDS=()
    BENCH_TMP=""
    NGINX_PREFIX=""
    return 0
}

# forget_pid PID: a process that was waited for is no longer ours to stop.
forget_pid() {
    local keep=() pid
    for pid in "${BENCH_PIDS[@]:-}"; do [ -n "$pid" ] && [ "$pid" != "$1" ] && keep+=("$pid"); done
    BENCH_PIDS=("${keep[@]:-}")
}

# Installs nginx and wrk (Debian packages) when missing; checks python3 and curl.
ensure_tools() {
    local missing=""
    command -v nginx >/dev/null || missing="$missing nginx"
    command -v wrk >/dev/null || missing="$missing wrk"
    command -v curl >/dev/null || missing="$missing curl"
    if [ -n "$missing" ]; then
        log "installing:$missing"
        local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
    fi
    command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 2; }
}

# Raises the open-file limit (10 000 idle connections, 100 000 sessions need it).
raise_nofile() {
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

require_ports() {
    local port
    for port in "$@"; do
        port_free "$port" || { echo "port $port on 127.0.0.1 is in use: stop what listens there" >&2; exit 2; }
    done
}

# wait_http URL [TRIES]: polls until URL answers (0.1 s apart).
wait_http() {
    local url=$1 tries=${2:-100} i
    for ((i = 0; i < tries; i++)); do
        curl -sf -o /dev/null --max-time 2 "$url" && return 0
        sleep 0.1
    done
    echo "no answer from $url" >&2
    return 1
}

build_hub() {
    log "building hub-server (release)"
    (cd "$REPO_DIR" && swift build -c release --product hub-server 2>&1 | tail -n 3)
}

build_hummingbird() {
    log "building the Hummingbird app (release, its own package)"
    (cd "$HB_DIR" && swift build -c release --product HummingbirdBench 2>&1 | tail -n 3)
}

# start_upstream [MAX_SECONDS]: the Python upstream on $UPSTREAM_PORT.
start_upstream() {
    require_ports "$UPSTREAM_PORT"
    python3 "$BENCH_DIR/upstream.py" "$UPSTREAM_PORT" --max-seconds "${1:-3600}" &
    BENCH_PIDS+=($!)
    UPSTREAM_PID=$!
    wait_http "http://127.0.0.1:$UPSTREAM_PORT/stats"
}

# start_hub CONFIG_DIR [PORT] [LOG]: hub-server with warnings only; sets HUB_PID.
start_hub() {
    local config=$1 port=${2:-$HUB_PORT_BENCH} logfile=${3:-$BENCH_TMP/hub.log}
    require_ports "$port"
    HUB_LOG_LEVEL=${HUB_LOG_LEVEL_BENCH:-warning} HUB_PORT=$port "$HUB_BIN" serve --config "$config" >>"$logfile" 2>&1 &
    HUB_PID=$!
    BENCH_PIDS+=($HUB_PID)
    wait_http "http://127.0.0.1:$port/health"
}

start_hummingbird() {
    require_ports "$HB_PORT"
    "$HB_BIN" "$HB_PORT" "$BENCH_DIR/config/content/bench-static.json" "$BENCH_DIR/upstream/items.json" \
        >"$BENCH_TMP/hummingbird.log" 2>&1 &
    HB_PID=$!
    BENCH_PIDS+=($HB_PID)
    wait_http "http://127.0.0.1:$HB_PORT/fixed"
}

# start_nginx HTML_DIR: nginx from the Debian package with its own prefix and config,
# one worker per core, serving HTML_DIR (view.json and its gzip view.json.gz).
start_nginx() {
    local html=$1
    require_ports "$NGINX_PORT"
    NGINX_PREFIX=$BENCH_TMP/nginx
    mkdir -p "$NGINX_PREFIX/logs" "$NGINX_PREFIX/tmp"
    chmod 755 "$NGINX_PREFIX"
    cat >"$NGINX_PREFIX/nginx.conf" <<CONF
worker_processes $(nproc);
worker_rlimit_nofile 65536;
error_log logs/error.log warn;
pid logs/nginx.pid;
events { worker_connections 16384; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 300;
    keepalive_requests 10000;
    open_file_cache max=16 inactive=60s;
    types { application/json json; }
    default_type application/json;
    client_body_temp_path $NGINX_PREFIX/tmp; proxy_temp_path $NGINX_PREFIX/tmp; fastcgi_temp_path $NGINX_PREFIX/tmp;
    uwsgi_temp_path $NGINX_PREFIX/tmp; scgi_temp_path $NGINX_PREFIX/tmp;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $html;
        gzip_static on;
        gzip_vary on;
    }
}
CONF
    nginx -p "$NGINX_PREFIX" -c nginx.conf || { cat "$NGINX_PREFIX/logs/error.log" >&2; return 1; }
    wait_http "http://127.0.0.1:$NGINX_PORT/view.json" || { cat "$NGINX_PREFIX/logs/error.log" >&2; return 1; }
}

# session_of URL: opens a session and prints its id (the Hub-Session header).
# The common start of every robustness script: tools, file limits, hub-server built, a temp
# folder cleaned up on exit, and the upstream running for $1 seconds.
#   robustness_setup UPSTREAM_SECONDS
robustness_setup() {
    trap bench_cleanup EXIT
    ensure_tools
    raise_nofile
    [ -x "$HUB_BIN" ] || build_hub
    bench_init_tmp
    start_upstream "$1"
}

# demo_setup SERVER_JSON: tools, the release binary, a temporary folder, and a copy of the demo
# Config/ in $BENCH_TMP/config with SERVER_JSON as its server.json (sets `config`).
demo_setup() {
    trap bench_cleanup EXIT
    ensure_tools
    [ -x "$HUB_BIN" ] || build_hub
    bench_init_tmp
    config="$BENCH_TMP/config"
    cp -r "$REPO_DIR/Config" "$config"
    printf '%s\n' "$1" >"$config/server.json"
}

session_of() {
    curl -s -D- -o /dev/null "$1" | tr -d '\r' | awk -F': ' 'tolower($1)=="hub-session"{print $2}'
}

rss_kib() { awk '/^VmRSS:/{print $2}' "/proc/$1/status"; }

load_average() { cut -d' ' -f1-3 /proc/loadavg; }
