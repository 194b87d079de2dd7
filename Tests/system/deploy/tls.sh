#!/usr/bin/env bash
# The TLS example, deploy/nginx/hubserver-tls.conf (make test-deploy, through Tests/system/deploy/check.sh):
#   1. a self-signed certificate made with openssl into a temporary directory (no key is kept);
#   2. `nginx -t` of the shipped file with its certificate paths pointed there;
#   3. the same file served on loopback (its listen ports and upstream rewritten, nothing else)
#      in front of a real hub-server: HTTPS answers with the certificate, and plain HTTP redirects.
# HUB_BIN: the hub-server binary. Prints PASS/FAIL lines; exits 1 on the first FAIL.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR"
HUB_BIN=${HUB_BIN:-$PWD/.build/debug/hub-server}
cleanup_on_exit
work_tmp tls
work=$WORK_TMP
abort() { fail "$*"; exit 1; }
for tool in openssl nginx curl; do command -v "$tool" >/dev/null 2>&1 || abort "$tool is not installed (make deps-deploy)"; done

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hub.example.test" \
    -addext "subjectAltName=DNS:hub.example.test" \
    -keyout "$work/hubserver.key" -out "$work/hubserver.crt" 2>/dev/null || abort "openssl could not make a certificate"
mkdir -p "$work/logs"
shipped=deploy/nginx/hubserver-tls.conf
[ "$(grep -c '/etc/nginx/tls/' "$shipped")" = 2 ] || abort "$shipped: expected the two /etc/nginx/tls/ paths"
sed -e "s#/etc/nginx/tls/#$work/#" "$shipped" >"$work/checked.conf"
if nginx -q -t -p "$work" -c "$work/checked.conf" -e "$work/logs/error.log" -g "pid $work/nginx.pid;"; then
    pass "nginx -t $shipped (a self-signed certificate)"
else
    abort "nginx -t $shipped"
fi

# Served: a hub-server on a free loopback port behind the file's listeners on two more.
HUB_CONFIG_WATCH=0 start_hub Config "" "$work/hub.log"
hub_port=$HUB_PORT_USED; https_port=$(free_port); http_port=$(free_port)
sed -e "s#listen 443 ssl#listen 127.0.0.1:$https_port ssl#" -e "s#listen 80;#listen 127.0.0.1:$http_port;#" \
    -e "s#server 127.0.0.1:8080;#server 127.0.0.1:$hub_port;#" -e "s#^worker_processes auto;#worker_processes 1;#" \
    -e "s#^http {#http {\n    client_body_temp_path $work/body; proxy_temp_path $work/proxy;\n    access_log $work/logs/access.log;#" \
    "$work/checked.conf" >"$work/served.conf"
for rewritten in "127.0.0.1:$https_port ssl" "127.0.0.1:$http_port;" "server 127.0.0.1:$hub_port;" "worker_processes 1;" "proxy_temp_path"; do
    grep -q "$rewritten" "$work/served.conf" || abort "$shipped: the rewrite to '$rewritten' did not apply"
done
nginx -p "$work" -c "$work/served.conf" -e "$work/logs/error.log" -g "daemon off; pid $work/nginx.pid;" &
track $!
url="https://hub.example.test:$https_port"
answered=""
for _ in $(seq 1 300); do  # nginx starting on a loaded machine: up to 30 s
    if curl -sf --max-time 5 --cacert "$work/hubserver.crt" --resolve "hub.example.test:$https_port:127.0.0.1" \
        "$url/health" >"$work/health.json" 2>/dev/null; then answered=1; break; fi
    sleep 0.1
done
[ -n "$answered" ] || { cat "$work/logs/error.log" "$work/hub.log" 2>/dev/null | tail -20; abort "no HTTPS answer from $url/health (did nginx start with $shipped?)"; }
grep -q '"status":"ok"' "$work/health.json" || abort "GET /health over HTTPS answered $(cat "$work/health.json")"
curl -sf --max-time 10 --cacert "$work/hubserver.crt" --resolve "hub.example.test:$https_port:127.0.0.1" \
    -D "$work/view.head" -o /dev/null "$url/view?uri=hub:food" || abort "GET /view over HTTPS"
grep -qi '^strict-transport-security:' "$work/view.head" || abort "no Strict-Transport-Security over HTTPS"
pass "$shipped serves HTTPS in front of hub-server (certificate verified, HSTS)"
redirect=$(curl -s --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' -H "Host: hub.example.test" \
    "http://127.0.0.1:$http_port/view?uri=hub:food")
[ "$redirect" = "308 https://hub.example.test/view?uri=hub:food" ] || abort "plain HTTP answered '$redirect', not a 308 to HTTPS"
pass "$shipped redirects plain HTTP to HTTPS (308)"
