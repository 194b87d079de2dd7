#!/usr/bin/env bash
# Three hub-server replicas behind the shipped nginx config (and the HAProxy one when haproxy
# is installed) on loopback, bounded (about a minute): sessions opened through the balancer keep
# working after the replica that held them is SIGKILLed, the Hub-Session header is accepted on
# every endpoint, requests without a session go round robin. Part of make test-deploy (via
# deploy/check.sh). deploy/testing/smoke.py holds the checks; deploy/testing/lib.sh the set-up.
#
#   deploy/test-replicas.sh            (HUB_BIN=path/to/hub-server; default .build/debug/hub-server)
set -euo pipefail
source "$(dirname "$0")/testing/lib.sh"
HUB_BIN=${HUB_BIN:-$REPO_DIR/.build/debug/hub-server}
[ -x "$HUB_BIN" ] || { echo "FAIL replicas: $HUB_BIN is missing (swift build --product hub-server)"; exit 1; }
command -v nginx >/dev/null || { echo "FAIL replicas: nginx is not installed (make deps-deploy)"; exit 1; }

replicas_init
start_counter 300
write_config '{ "host": "127.0.0.1", "port": 8080, "timeouts": { "drainSeconds": 2 }, "log": { "level": "warning" } }'
status=0

start_replicas

run_smoke() {
    local name=$1 pids
    pids=$(IFS=,; echo "${REPLICA_PIDS[*]}")
    timeout 180 python3 "$TESTING_DIR/smoke.py" --name "$name" --balancer "$BALANCER_PORT" --replicas "$(ports_csv)" \
        --pids "$pids" || status=1
    # The smoke test SIGKILLed one replica: reap it and start it again on its port.
    local index
    for index in 0 1 2; do
        if ! kill -0 "${REPLICA_PIDS[$index]}" 2>/dev/null; then
            wait "${REPLICA_PIDS[$index]}" 2>/dev/null || true
            start_replica "$index"
        fi
    done
}

each_balancer run_smoke --check-inter-ms 500

# With every replica gone, the balancer itself answers a problem (not its HTML error page).
start_nginx
for index in 0 1 2; do stop_replica "$index" KILL 10; done
answer=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$BALANCER_PORT/view?uri=hub:home")
if [[ "$answer" == *'"code":"replica_unavailable"'*' 502' ]]; then
    echo "PASS replicas-none-left: nginx answers 502 replica_unavailable as application/problem+json"
else
    echo "FAIL replicas-none-left: nginx answered $answer"; status=1
fi
stop_balancer "$NGINX_PID"
if haproxy_available; then
    BALANCER_PORT=$(free_port)
    python3 "$TESTING_DIR/balancer_config.py" haproxy --listen "$BALANCER_PORT" --servers "$(ports_csv)" \
        --check-inter-ms 500 >"$REPLICAS_TMP/haproxy-down.cfg"
    haproxy -db -f "$REPLICAS_TMP/haproxy-down.cfg" >>"$REPLICAS_TMP/haproxy.log" 2>&1 &
    HAPROXY_PID=$!
    OTHER_PIDS+=($HAPROXY_PID)
    answer=""
    for _ in $(seq 100); do
        answer=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$BALANCER_PORT/view?uri=hub:home" || true)
        [[ "$answer" == *' 503' ]] && break
        sleep 0.1
    done
    if [[ "$answer" == *'"code":"replica_unavailable"'*' 503' ]]; then
        echo "PASS replicas-none-left: HAProxy answers 503 replica_unavailable as application/problem+json"
    else
        echo "FAIL replicas-none-left: HAProxy answered $answer"; status=1
    fi
    stop_balancer "$HAPROXY_PID"
fi
exit $status
