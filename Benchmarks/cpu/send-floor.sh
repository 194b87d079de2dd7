#!/usr/bin/env bash
# The kernel's floor per response on loopback (`make bench-send-floor`): Benchmarks/cpu/send_floor.c,
# a minimal epoll responder whose own code does next to nothing, sends a view-sized head and a
# body of each size four ways (splice: the head by sendmsg, the body's pages tee'd and spliced,
# HubServer's path for bodies of 16 KiB and more; pipe: head and pages in one splice; copy: one
# sendmsg of head and body, HubServer's path below 16 KiB; sendfile: the head by sendmsg, the
# body by sendfile from a memfd, nginx's path) under `wrk -t1 -c32` with the app client's
# fields; per size and way the medians of the rounds of its user and system CPU µs per request
# (utime and stime from /proc/PID/stat over the requests wrk completed: lib.sh's `measure_run`),
# the ways alternating within each round. What it answers: how much of HubServer's system time
# in `make bench-cpu` any server would spend sending the same bytes (docs/PERFORMANCE.md). Needs
# a C compiler (cc; gcc is installed when missing); loopback only; everything started here is
# stopped on exit.
#
#   Benchmarks/cpu/send-floor.sh
#   FLOOR_SIZES="1 16 28" FLOOR_MODES="splice pipe copy sendfile" FLOOR_ROUNDS=3 FLOOR_SECONDS=3 FLOOR_CLIENT=app|wrk
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
SIZES=${FLOOR_SIZES:-1 16 28} MODES=${FLOOR_MODES:-splice pipe copy sendfile}
ROUNDS=${FLOOR_ROUNDS:-3} SECONDS_EACH=${FLOOR_SECONDS:-3} CLIENT=${FLOOR_CLIENT:-app}

cleanup_on_exit
ensure_tools wrk
raise_nofile
work_tmp send-floor
command -v cc >/dev/null || ensure_tools gcc
cc -O2 -Wall -Werror -o "$WORK_TMP/send_floor" "$(dirname "$0")/send_floor.c"
FIELDS=()
[ "$CLIENT" = app ] && FIELDS=("${APP_CLIENT_HEADERS[@]}" -H 'Accept-Encoding: identity')
port=$(free_port)
log "load average $(load_average) on $(nproc) cores; sizes $SIZES KB; ways $MODES; $ROUNDS rounds of ${SECONDS_EACH} s; client $CLIENT"
declare -A USER SYSTEM RATE  # per "size way": the rounds' figures, space-separated
for round in $(seq "$ROUNDS"); do
    for size in $SIZES; do
        for mode in $MODES; do
            "$WORK_TMP/send_floor" "$port" "$mode" $((size * 1000)) &
            server=$!
            track "$server"
            wait_url "http://127.0.0.1:$port/" || { log "send_floor did not start"; exit 1; }
            read -r rate _ cpu user _ < <(measure_run 1 32 "$SECONDS_EACH" "http://127.0.0.1:$port/" "$server" - "${FIELDS[@]}")
            stop_pid "$server"
            [ "$rate" != 0 ] || { log "$size KB $mode: an answer was not 2xx"; exit 1; }
            USER[$size $mode]+=" $user" SYSTEM[$size $mode]+=" $(awk -v c="$cpu" -v u="$user" 'BEGIN { printf "%.2f", c - u }')"
            RATE[$size $mode]+=" $rate"
        done
    done
done
log "load average $(load_average) at the end"
echo "| KB | way | user µs/req | system µs/req | req/s |"
echo "|---|---|---|---|---|"
for size in $SIZES; do
    for mode in $MODES; do
        # shellcheck disable=SC2086  # the rounds' figures, one word each
        printf '| %s | %s | %.2f | %.2f | %.0f |\n' "$size" "$mode" "$(median ${USER[$size $mode]})" \
            "$(median ${SYSTEM[$size $mode]})" "$(median ${RATE[$size $mode]})"
    done
done
