#!/usr/bin/env bash
# HubHTTP loopback benchmark: wrk against the release HubHTTPBenchmarks server (30 KB JSON),
# and against nginx serving the same bytes as a static file when nginx is installed.
#   Benchmarks/HubHTTPBenchmarks/run.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
connections=${2:-32}
port=8090
nginx_port=8091
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }

swift build -c release --product HubHTTPBenchmarks
.build/release/HubHTTPBenchmarks $port & server=$!
trap 'kill $server 2>/dev/null || true; [ -n "${nginx_dir:-}" ] && nginx -p "$nginx_dir" -c nginx.conf -s stop 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null http://127.0.0.1:$port/view && break; sleep 0.1; done

echo "== HubHTTP: GET /view (30 KB), $connections connections, ${seconds}s"
wrk -t2 -c"$connections" -d"${seconds}s" --latency http://127.0.0.1:$port/view
echo "== HubHTTP: GET /view.now (the immediate path: no task), with Accept-Encoding: gzip"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -H 'Accept-Encoding: gzip' http://127.0.0.1:$port/view.now
echo "== HubHTTP: GET /view (a task per request), with Accept-Encoding: gzip"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -H 'Accept-Encoding: gzip' http://127.0.0.1:$port/view
echo "== HubHTTP: GET /view.gz with Accept-Encoding: gzip"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -H 'Accept-Encoding: gzip' http://127.0.0.1:$port/view.gz

if command -v nginx >/dev/null; then
    nginx_dir=$(mktemp -d)
    chmod 755 "$nginx_dir"
    mkdir -p "$nginx_dir/html" "$nginx_dir/logs"
    curl -sf http://127.0.0.1:$port/view -o "$nginx_dir/html/view"
    cat > "$nginx_dir/nginx.conf" <<CONF
worker_processes 2;
error_log logs/error.log;
pid logs/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    default_type application/json;
    client_body_temp_path $nginx_dir/tmp; proxy_temp_path $nginx_dir/tmp; fastcgi_temp_path $nginx_dir/tmp;
    uwsgi_temp_path $nginx_dir/tmp; scgi_temp_path $nginx_dir/tmp;
    server { listen 127.0.0.1:$nginx_port; root $nginx_dir/html; }
}
CONF
    mkdir -p "$nginx_dir/tmp"
    nginx -p "$nginx_dir" -c nginx.conf
    sleep 0.3
    echo "== nginx static: GET /view (same bytes)"
    wrk -t2 -c"$connections" -d"${seconds}s" --latency http://127.0.0.1:$nginx_port/view
fi
