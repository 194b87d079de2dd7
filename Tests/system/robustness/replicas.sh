#!/usr/bin/env bash
# Failover: 3 hub-server replicas (release) behind the shipped nginx config, and then
# behind the HAProxy one when haproxy is installed; 50 client loops, each holding a session of
# hub:counter (GET by session and actions with the Hub-Session header, one event-stream listener
# each; the count lives in an upstream service, keyed by the session id, which answers 20 ms
# late so that requests are in flight at any moment); one replica SIGKILLed
# 12 s into the run, the loops continue 15 s more.
# PASS (per balancer) when only requests in flight on the killed replica fail, every session
# continues on another replica (rebuilt, counted in hub_sessions_rebuilt_total) with its count,
# and every stream reconnects with Last-Event-ID and holds the current view at the end.
# Loopback only; bounded (about 2 minutes). Tests/system/robustness/replicas_clients.py runs the
# loops, replicas_judge.py judges; Tests/system/lib.sh starts everything.
#
#   Tests/system/robustness/replicas.sh [CLIENTS]       (default 50)
set -euo pipefail
ROBUST_DIR="$(cd "$(dirname "$0")" && pwd)"
source "$ROBUST_DIR/../lib.sh"
clients=${1:-50}
replicas_setup 20      # every view and action waits 20 ms upstream: requests are in flight at any moment
write_config '{ "host": "127.0.0.1", "port": 8080, "timeouts": { "drainSeconds": 5 }, "log": { "level": "warning" } }'
start_replicas
status=0

run() {
    local balancer=$1 victim=2 killed
    rm -f "$WORK_TMP/stop"
    # The victim: the third replica, by port (nginx) or server name (HAProxy) as X-Hub-Replica says.
    if [ "$balancer" = nginx ]; then killed="127.0.0.1:${REPLICA_PORTS[$victim]}"; else killed="hub$((victim + 1))"; fi
    (sleep 27; touch "$WORK_TMP/stop") &
    timeout 180 python3 "$ROBUST_DIR/replicas_clients.py" --balancer "$BALANCER_PORT" --replicas "$(ports_csv)" \
        --clients "$clients" --until-file "$WORK_TMP/stop" --max-seconds 60 \
        --kill-pid "${REPLICA_PIDS[$victim]}" --kill-at 12 --out "$WORK_TMP/$balancer.json"
    python3 "$ROBUST_DIR/replicas_judge.py" kill "$WORK_TMP/$balancer.json" --name "replicas-$balancer" \
        --killed "$killed" || status=1
    { wait "${REPLICA_PIDS[$victim]}"; } 2>/dev/null || true
    start_replica "$victim"
}

each_balancer run
exit $status
