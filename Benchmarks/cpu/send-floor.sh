#!/usr/bin/env bash
# The kernel's floor per response on loopback (`make bench-send-floor`): Benchmarks/cpu/send_floor.c,
# a minimal epoll responder whose own code does next to nothing, sends a view-sized head and a
# body of each size three ways (splice: the head by sendmsg, the body's pages tee'd and spliced,
# HubServer's path for bodies of 16 KiB and more; pipe: head and pages in one splice; copy: one
# sendmsg of head and body, HubServer's path below 16 KiB) under `wrk -t1 -c32` with the app
# client's fields; per size and way the medians of the rounds of its user and system CPU µs per
# request (utime and stime from /proc/PID/stat over the requests wrk completed), the ways
# alternating within each round. What it answers: how much of HubServer's system time in
# `make bench-cpu` any server would spend sending the same bytes (docs/PERFORMANCE.md). Needs a
# C compiler (gcc or cc); loopback only; everything started here is stopped on exit.
#
#   Benchmarks/cpu/send-floor.sh
#   FLOOR_SIZES="1 16 28" FLOOR_MODES="splice pipe copy" FLOOR_ROUNDS=3 FLOOR_SECONDS=3 FLOOR_CLIENT=app|wrk
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
SIZES=${FLOOR_SIZES:-1 16 28} MODES=${FLOOR_MODES:-splice pipe copy}
ROUNDS=${FLOOR_ROUNDS:-3} SECONDS_EACH=${FLOOR_SECONDS:-3} CLIENT=${FLOOR_CLIENT:-app}

cleanup_on_exit
ensure_tools wrk
raise_nofile
work_tmp send-floor
compiler=$(command -v gcc || command -v cc || true)
[ -n "$compiler" ] || { echo "send-floor: no C compiler (apt-get install gcc)" >&2; exit 2; }
"$compiler" -O2 -Wall -Werror -o "$WORK_TMP/send_floor" "$(dirname "$0")/send_floor.c"
FIELDS=()
[ "$CLIENT" = app ] && FIELDS=("${APP_CLIENT_HEADERS[@]}" -H 'Accept-Encoding: identity')
ticks=$(getconf CLK_TCK)
port=$(free_port)
log "load average $(load_average) on $(nproc) cores; sizes $SIZES KB; ways $MODES; $ROUNDS rounds of ${SECONDS_EACH} s; client $CLIENT"
results="$WORK_TMP/results.tsv"
: >"$results"
for round in $(seq "$ROUNDS"); do
    for size in $SIZES; do
        for mode in $MODES; do
            "$WORK_TMP/send_floor" "$port" "$mode" $((size * 1000)) &
            server=$!
            track "$server"
            wait_url "http://127.0.0.1:$port/" || { log "send_floor did not start"; exit 1; }
            read -r user0 sys0 < <(awk '{ sub(/^.*\) /, ""); print $12, $13 }' "/proc/$server/stat")
            output=$(wrk -t1 -c32 -d"${SECONDS_EACH}s" "${FIELDS[@]}" "http://127.0.0.1:$port/")
            read -r user1 sys1 < <(awk '{ sub(/^.*\) /, ""); print $12, $13 }' "/proc/$server/stat")
            stop_pid "$server"
            requests=$(awk '/requests in/ { print $1 }' <<<"$output")
            errors=$(awk '/Socket errors|Non-2xx/ { print }' <<<"$output")
            [ -z "$errors" ] || log "warning: $size KB $mode: $errors"
            printf '%s\t%s\t%s\t%s\t%s\n' "$size" "$mode" "$requests" \
                "$(awk -v t="$((user1 - user0))" -v n="$requests" -v hz="$ticks" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')" \
                "$(awk -v t="$((sys1 - sys0))" -v n="$requests" -v hz="$ticks" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')" >>"$results"
        done
    done
done
log "load average $(load_average) at the end"
python3 - "$results" "$SECONDS_EACH" <<'PYTHON'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
seconds = float(sys.argv[2])
print("| KB | way | user µs/req | system µs/req | user+sys µs/req | req/s |")
print("|---|---|---|---|---|---|")
cells = {}
for size, mode, requests, user, system in rows:
    cells.setdefault((size, mode), []).append((int(requests), float(user), float(system)))
for (size, mode), runs in cells.items():
    median = lambda values: statistics.median(values)
    print(f"| {size} | {mode} | {median([r[1] for r in runs]):.2f} | {median([r[2] for r in runs]):.2f} | "
          f"{median([r[1] + r[2] for r in runs]):.2f} | {median([r[0] for r in runs]) / seconds:.0f} |")
PYTHON
