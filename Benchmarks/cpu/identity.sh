#!/usr/bin/env bash
# `make bench-identity`: what naming a user costs per request. A held view of the demo config
# (Config/, whose identity is the development issuer: Ed25519 tokens) polled with
# `GET /view?session=` by three clients, each with a session of its own: a bearer token (made by
# `hub-server dev-token`), a trusted gateway's `X-User-Id` (the demo config with
# `identity.header` and `trustedProxies: ["127.0.0.1"]` instead), and anonymous; beside them
# nginx (one worker per core, `open_file_cache`) serving the bearer client's view as a file to
# the bearer client's request. Per round and client one `wrk -t1 -c32` run; the server's
# user+system CPU per request from /proc, the request rate, p99. Prints each round and the
# medians. Release build (BENCH_BIN: another); loopback only; every process started here is
# stopped on exit.
#
#   Benchmarks/cpu/identity.sh                 (make bench-identity; IDENTITY_ROUNDS=3, IDENTITY_SECONDS=3)
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
ROUNDS=${IDENTITY_ROUNDS:-3}
SECONDS_PER_RUN=${IDENTITY_SECONDS:-3}
HUB_BIN=${BENCH_BIN:-$HUB_BIN}

cleanup_on_exit
ensure_tools wrk curl nginx
use_hub_server release
work_tmp bench-identity
log "load average $(load_average) on $(nproc) cores; git $(cd "$REPO_DIR" && git rev-parse --short HEAD); $HUB_BIN"

# The demo config (bearer and anonymous clients) and its gateway copy, each in a data directory of its own.
mkdir -p "$WORK_TMP/gateway"
cp -r "$REPO_DIR/Config/." "$WORK_TMP/gateway/"
python3 - "$WORK_TMP/gateway/server.json" <<'PY'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
settings["identity"] = {"header": {"name": "X-User-Id"}}
settings["trustedProxies"] = ["127.0.0.1"]
json.dump(settings, open(path, "w"), indent=2)
PY
HUB_DATA_DIR="$WORK_TMP/demo-data" start_hub "$REPO_DIR/Config" "" "$WORK_TMP/demo.log"
DEMO_PID=$HUB_PID DEMO_URL=$HUB_URL
HUB_DATA_DIR="$WORK_TMP/gateway-data" start_hub "$WORK_TMP/gateway" "" "$WORK_TMP/gateway.log"
GATEWAY_PID=$HUB_PID GATEWAY_URL=$HUB_URL
TOKEN=$(HUB_DATA_DIR="$WORK_TMP/demo-data" "$HUB_BIN" dev-token --config "$REPO_DIR/Config" --subject bench-user | tail -n 1)

# script NAME HEADER...: a wrk script sending the headers (and Accept-Encoding: identity).
script() {
    local path="$WORK_TMP/$1.lua" header
    shift
    : >"$path"
    for header in "$@" "Accept-Encoding: identity"; do
        printf 'wrk.headers["%s"] = "%s"\n' "${header%%: *}" "${header#*: }" >>"$path"
    done
    echo "$path"
}
BEARER_LUA=$(script bearer "Authorization: Bearer $TOKEN")
GATEWAY_LUA=$(script gateway "X-User-Id: bench-user")
ANONYMOUS_LUA=$(script anonymous)
BEARER_SESSION=$(session_of "$DEMO_URL/view?uri=hub:home" -H "Authorization: Bearer $TOKEN")
GATEWAY_SESSION=$(session_of "$GATEWAY_URL/view?uri=hub:home" -H "X-User-Id: bench-user")
ANONYMOUS_SESSION=$(session_of "$DEMO_URL/view?uri=hub:home")
[ -n "$BEARER_SESSION" ] && [ -n "$GATEWAY_SESSION" ] && [ -n "$ANONYMOUS_SESSION" ] || { log "a session did not open"; exit 1; }
mkdir -p "$WORK_TMP/html"
curl -sf -H "Authorization: Bearer $TOKEN" -H "Accept-Encoding: identity" \
    "$DEMO_URL/view?session=$BEARER_SESSION" >"$WORK_TMP/html/view.json"
start_nginx "$WORK_TMP/html"
NGINX_PIDS="$NGINX_PID,$(nginx_workers)"

declare -A CPU RATE P99
printf '%-9s %5s %10s %9s %12s\n' client round "req/s" "p99 ms" "CPU µs/req"
for round in $(seq 1 "$ROUNDS"); do
    for client in bearer gateway anonymous nginx; do
        case $client in
            bearer) url="$DEMO_URL/view?session=$BEARER_SESSION" pid=$DEMO_PID lua=$BEARER_LUA ;;
            gateway) url="$GATEWAY_URL/view?session=$GATEWAY_SESSION" pid=$GATEWAY_PID lua=$GATEWAY_LUA ;;
            anonymous) url="$DEMO_URL/view?session=$ANONYMOUS_SESSION" pid=$DEMO_PID lua=$ANONYMOUS_LUA ;;
            nginx) url="http://127.0.0.1:$NGINX_PORT/view.json?session=$BEARER_SESSION" pid=$NGINX_PIDS lua=$BEARER_LUA ;;
        esac
        read -r rate p99 cpu _ <<<"$(measure_run 1 32 "$SECONDS_PER_RUN" "$url" "$pid" - -s "$lua")"
        [ "$rate" != 0 ] || { log "$client: an answer was not 2xx"; exit 1; }
        printf '%-9s %5s %10s %9s %12s\n' "$client" "$round" "$rate" "$p99" "$cpu"
        CPU[$client]+="$cpu " RATE[$client]+="$rate " P99[$client]+="$p99 "
    done
done
echo "medians of $ROUNDS rounds:"
for client in bearer gateway anonymous nginx; do
    # shellcheck disable=SC2086
    printf '%-9s %16s %9s %12s\n' "$client" "$(median ${RATE[$client]})" "$(median ${P99[$client]})" "$(median ${CPU[$client]})"
done
log "reused tokens: $(hub_metric "$DEMO_URL" hub_identity_tokens_reused_total); verified ok: $(curl -s "$DEMO_URL/metrics" | awk '$1 == "hub_identity_verifications_total{result=\"ok\"}" { print $2 }')"
