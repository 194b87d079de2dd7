#!/usr/bin/env bash
# Three hub-server replicas behind the shipped nginx config (and the HAProxy one when haproxy
# is installed) on loopback, bounded (about a minute): sessions opened through the balancer keep
# working after the replica that held them is SIGKILLed, the Hub-Session header is accepted on
# every endpoint, requests without a session go round robin. Part of make test-deploy (via
# Tests/system/deploy/check.sh). smoke.py holds the checks; Tests/system/lib.sh the set-up.
#
#   Tests/system/deploy/replicas.sh     (HUB_BIN=path/to/hub-server; default .build/debug/hub-server)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
HUB_BIN=${HUB_BIN:-$REPO_DIR/.build/debug/hub-server}
[ -x "$HUB_BIN" ] || { fail "replicas: $HUB_BIN is missing (swift build --product hub-server)"; checks_done; }
command -v nginx >/dev/null || { fail "replicas: nginx is not installed (make deps-deploy)"; checks_done; }

cleanup_on_exit
work_tmp replicas
start_counter 300
write_config '{ "host": "127.0.0.1", "port": 8080, "timeouts": { "drainSeconds": 2 }, "log": { "level": "warning" } }'

start_replicas

run_smoke() {
    local name=$1 pids
    pids=$(IFS=,; echo "${REPLICA_PIDS[*]}")
    timeout 180 python3 "$SYSTEM_DIR/deploy/smoke.py" --name "$name" --balancer "$BALANCER_PORT" --replicas "$(ports_csv)" \
        --pids "$pids" || CHECK_STATUS=1
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
start_nginx_balancer
for index in 0 1 2; do stop_replica "$index" KILL 10; done
answer=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$BALANCER_PORT/view?uri=hub:home")
if [[ "$answer" == *'"code":"replica_unavailable"'*' 502' ]]; then
    pass "replicas-none-left: nginx answers 502 replica_unavailable as application/problem+json"
else
    fail "replicas-none-left: nginx answered $answer"
fi
stop_pid "$NGINX_PID"
if haproxy_available; then
    HAPROXY_NO_WAIT=1 start_haproxy_balancer --check-inter-ms 500
    answer=""
    for _ in $(seq 100); do
        answer=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$BALANCER_PORT/view?uri=hub:home" || true)
        [[ "$answer" == *' 503' ]] && break
        sleep 0.1
    done
    if [[ "$answer" == *'"code":"replica_unavailable"'*' 503' ]]; then
        pass "replicas-none-left: HAProxy answers 503 replica_unavailable as application/problem+json"
    else
        fail "replicas-none-left: HAProxy answered $answer"
    fi
    stop_pid "$HAPROXY_PID"
fi
checks_done
