#!/usr/bin/env bash
# Rolling restart: 3 hub-server replicas (release) behind the shipped nginx config,
# and then the HAProxy one when haproxy is installed; 50 client loops as in replicas.sh
# (sessions of hub:counter, GET and actions with the Hub-Session header, one event-stream
# listener each) while each replica in turn gets SIGTERM, drains, exits and starts again on its
# port. The replicas run with timeouts.drainDelaySeconds 3: /ready turns 503 and they keep
# serving for 3 s (HAProxy's check of /ready, every 500 ms here, takes them out meanwhile;
# nginx cannot see /ready and relies on connect errors being retried elsewhere), then the
# listener closes and in-flight requests finish. timeouts.streamSeconds 15 (STREAM_SECONDS=0 to
# see why): a stream that reconnected to another replica while its session's replica restarted
# goes back to it within 15 s, when the server ends it and the client reconnects.
# PASS (per balancer) when no request fails (0 errors, every answer 2xx), every count stays
# consistent, every replica exits 0 within its drain, and every stream holds the current view
# at the end. Loopback only; bounded (about 2 minutes).
#
#   Tests/system/robustness/rolling-restart.sh [CLIENTS]      (default 50)
set -euo pipefail
ROBUST_DIR="$(cd "$(dirname "$0")" && pwd)"
source "$ROBUST_DIR/../lib.sh"
clients=${1:-50}
replicas_setup 20      # every view and action waits 20 ms upstream: requests are in flight at any moment
write_config '{ "host": "127.0.0.1", "port": 8080, "timeouts": { "drainDelaySeconds": 3, "drainSeconds": 10, "streamSeconds": '"${STREAM_SECONDS:-15}"' }, "log": { "level": "warning" } }'
start_replicas
status=0

run() {
    local balancer=$1 index code started stopped
    rm -f "$WORK_TMP/stop"
    timeout 240 python3 "$ROBUST_DIR/replicas_clients.py" --balancer "$BALANCER_PORT" --replicas "$(ports_csv)" \
        --clients "$clients" --until-file "$WORK_TMP/stop" --max-seconds 120 --out "$WORK_TMP/$balancer.json" &
    local loops=$!
    sleep 5
    for index in 0 1 2; do
        started=$(date +%s.%N)
        stop_replica "$index" TERM 30
        code=$STOP_CODE
        stopped=$(date +%s.%N)
        start_replica "$index"
        printf '  replica %d: SIGTERM, exit %s after %.1f s, ready again %.1f s later\n' "$index" "$code" \
            "$(echo "$stopped - $started" | bc)" "$(echo "$(date +%s.%N) - $stopped" | bc)"
        [ "$code" = 0 ] || { echo "  replica $index exited $code"; status=1; }
        sleep 7   # nginx tries a failed server again after fail_timeout (5 s); HAProxy needs `rise` checks
    done
    sleep 3
    touch "$WORK_TMP/stop"
    wait "$loops" || status=1
    python3 "$ROBUST_DIR/replicas_judge.py" rolling "$WORK_TMP/$balancer.json" --name "rolling-restart-$balancer" || status=1
}

each_balancer run --check-inter-ms 500
exit $status
