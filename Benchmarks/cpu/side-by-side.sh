#!/usr/bin/env bash
# Two hub-server binaries side by side on the realistic config (Benchmarks/configs/realistic):
# both serve at once (one benchmark upstream), and every cell runs wrk against each in turn,
# the order alternating by round; per cell and binary the medians of the rounds of user, system
# and user+sys CPU µs per request (`cpu_ticks`, /proc/PID/stat) and voluntary context switches per
# request, and user+sys apart for the runs whose connections all landed on one event loop and the
# runs that split them (the busiest loop's share of the loops' CPU at 0.95 or more, or less).
# What docs/PERFORMANCE.md "The profile-guided build" compares (plain against `make release-pgo`).
# Loopback only; every process started here is stopped on exit.
#
#   Benchmarks/cpu/side-by-side.sh BIN_A BIN_B
#   SBS_ROUNDS=3 SBS_SECONDS=3 SBS_THREADS=1 SBS_CONNS=32 SBS_SIZES="1 16 28" SBS_ENDPOINTS="session uri"
#   SBS_CLIENT=app|apps|wrk (app: the app client's seven fields, as bench-cpu's; apps: those from 64
#   apps in turn, another Hub-Client-Id on every request, ?uri= only; wrk: wrk's bare request)
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
[ $# = 2 ] || { echo "usage: $0 BIN_A BIN_B" >&2; exit 2; }
CONFIG=${SBS_CONFIG:-$REPO_DIR/Benchmarks/configs/realistic}  # SBS_CONFIG: as run.sh's BENCH_CONFIG
UPSTREAM_PORT=18181  # the realistic config's remote operations name it
ROUNDS=${SBS_ROUNDS:-3} SECONDS_EACH=${SBS_SECONDS:-3} THREADS=${SBS_THREADS:-1} CONNS=${SBS_CONNS:-32}
SIZES=${SBS_SIZES:-1 16 28} ENDPOINTS=${SBS_ENDPOINTS:-session uri} CLIENT=${SBS_CLIENT:-app}

cleanup_on_exit
ensure_tools wrk curl
raise_nofile
work_tmp side-by-side
log "load average $(load_average); A=$1 B=$2"
start_upstream 3600 --files "$CONFIG/upstream"
# The app client: Benchmarks/bench/lib.sh's fields (as bench-cpu's app shape), identity.
SCRIPT="$WORK_TMP/client.lua"; : >"$SCRIPT"
FIELDS=()
if [ "$CLIENT" = app ] || [ "$CLIENT" = apps ]; then
    FIELDS=("${APP_CLIENT_HEADERS[@]}" -H 'Accept-Encoding: identity')
    for field in "${FIELDS[@]}"; do
        [ "$field" = -H ] && continue
        printf 'wrk.headers["%s"] = "%s"\n' "${field%%: *}" "${field#*: }" >>"$SCRIPT"
    done
fi
if [ "$CLIENT" = apps ]; then
    [ "$ENDPOINTS" = uri ] || { log "SBS_CLIENT=apps asks ?uri= only: set SBS_ENDPOINTS=uri"; exit 2; }
    printf '%s\n' 'local n = 0' 'request = function()' '  n = n + 1' \
        '  wrk.headers["Hub-Client-Id"] = string.format("client-%05d", n % 64)' '  return wrk.format(nil)' 'end' >>"$SCRIPT"
fi
declare -A PID URL TOKEN
for side in A B; do
    [ $side = A ] && HUB_BIN=$1 || HUB_BIN=$2
    HUB_LOG_LEVEL_CHECK=info start_hub "$CONFIG" "" "$WORK_TMP/hub-$side.log"
    PID[$side]=$HUB_PID URL[$side]=$HUB_URL
    for uri in hub:catalog hub:news hub:home; do curl -sf -o /dev/null "$HUB_URL/view?uri=$uri" || log "warning: $uri failed"; done
    for size in $SIZES; do
        TOKEN[$side,$size]=$(session_of "$HUB_URL/view?uri=hub:bench:${size}k" "${FIELDS[@]}")
        [ -n "${TOKEN[$side,$size]}" ] || { log "no session for hub:bench:${size}k"; exit 1; }
    done
done
waits_of() { cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n }'; }
# loop_ticks PID: each event loop thread's utime+stime ticks, as "name:ticks" words (hubhttp-loop-N).
loop_ticks() {
    local task
    for task in /proc/"$1"/task/*; do
        case $(cat "$task/comm" 2>/dev/null) in hubhttp-loop-*) ;; *) continue ;; esac
        awk -v name="$(cat "$task/comm")" '{ sub(/^.*\) /, ""); printf "%s:%d ", name, $12 + $13 }' "$task/stat"
    done
}
# loop_share BEFORE AFTER: the busiest loop's share of the loops' CPU between two loop_ticks
# (1.00: one loop served every connection; about 0.5: split evenly). Where wrk's connections land
# decides a run's CPU per request more than most code changes, so runs are compared within a
# placement (docs/performance/history.md).
loop_share() {
    python3 -c 'import sys
b = dict(w.rsplit(":", 1) for w in sys.argv[1].split()); a = dict(w.rsplit(":", 1) for w in sys.argv[2].split())
d = [int(a[k]) - int(b.get(k, 0)) for k in a]
print("%.2f" % (max(d) / sum(d) if d and sum(d) > 0 else 1))' "$1" "$2"
}
RESULTS="$WORK_TMP/results"; : >"$RESULTS"
for round in $(seq "$ROUNDS"); do
    for size in $SIZES; do for endpoint in $ENDPOINTS; do
        order="A B"; [ $((round % 2)) = 0 ] && order="B A"
        for side in $order; do
            if [ "$endpoint" = session ]; then target="/view?session=${TOKEN[$side,$size]}"; else target="/view?uri=hub:bench:${size}k"; fi
            read -r user0 sys0 < <(cpu_ticks "${PID[$side]}"); waits0=$(waits_of "${PID[$side]}"); loops0=$(loop_ticks "${PID[$side]}")
            requests=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECONDS_EACH}s" -s "$SCRIPT" "${URL[$side]}$target" | awk '/requests in/ { print $1 }')
            read -r user1 sys1 < <(cpu_ticks "${PID[$side]}"); waits1=$(waits_of "${PID[$side]}"); loops1=$(loop_ticks "${PID[$side]}")
            share=$(loop_share "$loops0" "$loops1")
            echo "$size $endpoint $side $requests $((user1 - user0)) $((sys1 - sys0)) $((waits1 - waits0)) $share" >>"$RESULTS"
        done
    done; done
done
python3 - "$RESULTS" "$(getconf CLK_TCK)" <<'PY'
import collections, statistics, sys
cells = collections.defaultdict(list)
tick_us = 1e6 / int(sys.argv[2])
for line in open(sys.argv[1]):
    size, endpoint, side, requests, user, system, waits, share = line.split()
    requests = int(requests)
    cells[(int(size), endpoint, side)].append(
        (int(user) * tick_us / requests, int(system) * tick_us / requests, int(waits) / requests, float(share)))
median = lambda values: statistics.median(values) if values else float("nan")
def placed(runs, one):
    # One loop: the busiest loop did at least 95% of the loops' work.
    chosen = [u + s for u, s, _, share in runs if (share >= 0.95) == one]
    return f"{median(chosen):.2f} ({len(chosen)})" if chosen else "-"
print("| KB | endpoint | binary | user µs | sys µs | user+sys µs | waits/req | user+sys, one loop (runs) | user+sys, split (runs) |")
print("|---|---|---|---|---|---|---|---|---|")
for (size, endpoint, side), runs in sorted(cells.items()):
    print(f"| {size} | {endpoint} | {side} | {median([r[0] for r in runs]):.2f} | {median([r[1] for r in runs]):.2f} "
          f"| {median([r[0] + r[1] for r in runs]):.2f} | {median([r[2] for r in runs]):.3f} | {placed(runs, True)} | {placed(runs, False)} |")
PY
