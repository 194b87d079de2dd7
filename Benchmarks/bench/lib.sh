# Helpers of Benchmarks/run.sh, Benchmarks/bench/*.sh and Benchmarks/reload/sighup-storm.sh, on
# top of the shell library of the system checks (Tests/system/lib.sh: processes stopped on exit,
# ports, waiting, tools, starting hub-server, the Python upstream): the fixed ports, the release
# builds, nginx serving a static file, the Hummingbird app. Source it from bash with
# `set -euo pipefail`. Every server listens on 127.0.0.1 only.

source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../Tests/system/lib.sh"
HB_DIR="$REPO_DIR/Benchmarks/HummingbirdApp"
HUB_BIN="$REPO_DIR/.build/release/hub-server"
HB_BIN="$HB_DIR/.build/release/HummingbirdBench"

# Fixed loopback ports (the bench config names the upstream's, UPSTREAM_PORT); override the
# others with env.
HUB_PORT_BENCH=${HUB_PORT_BENCH:-18080}
NGINX_PORT=${NGINX_PORT:-18082}
HB_PORT=${HB_PORT:-18083}

build_hummingbird() {
    log "building the Hummingbird app (release, its own package)"
    (cd "$HB_DIR" && swift build -c release --product HummingbirdBench 2>&1 | tail -n 3)
}

start_hummingbird() {
    require_ports "$HB_PORT"
    "$HB_BIN" "$HB_PORT" "$BENCH_DIR/config/content/bench-static.json" "$BENCH_DIR/upstream/items.json" \
        >"$WORK_TMP/hummingbird.log" 2>&1 &
    HB_PID=$!
    track "$HB_PID"
    wait_url "http://127.0.0.1:$HB_PORT/fixed"
}

# start_nginx HTML_DIR: nginx from the Debian package with its own prefix and config, one
# worker per core, serving HTML_DIR (view.json and its gzip view.json.gz), in the foreground
# (stopped by PID with the rest).
start_nginx() {
    local html=$1
    require_ports "$NGINX_PORT"
    NGINX_PREFIX=$WORK_TMP/nginx
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
    nginx -p "$NGINX_PREFIX" -c nginx.conf -g "daemon off;" &
    track $!
    wait_url "http://127.0.0.1:$NGINX_PORT/view.json" || { cat "$NGINX_PREFIX/logs/error.log" >&2; return 1; }
}
