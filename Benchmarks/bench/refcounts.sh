#!/usr/bin/env bash
# Reference counting per request: the swift_retain and swift_release calls hub-server makes per
# `GET /view`, counted exactly with perf's uprobes on libswiftCore (not sampled, not timed), so
# the figure is the same from run to run and on a busy machine: a regression in the request
# path's copies shows here before it shows in req/s (docs/PERFORMANCE.md, the eleventh pass).
#
#   Benchmarks/bench/refcounts.sh              (make bench-refcounts) the table below
#   REFCOUNT_BIN=path/to/hub-server            another build (to compare two commits)
#   REFCOUNT_STACKS=1                          also the top callers of the held 2 KB view
#
# Cells: the matrix's static views of 2 and 40 KB (matrix_config.py), `?session=` (held) and
# `?uri=` (memoized), with wrk's own request, an app client's fields (as MATRIX_CLIENT=app
# sends them) and `Accept-Encoding: gzip`. Each cell: a 1 s `wrk -t1 -c2` run inside a
# `perf stat` of the uprobes, divided by the requests wrk completed. Needs root (uprobes) and
# linux-perf; loopback only; everything started is stopped on exit.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cleanup_on_exit
ensure_tools
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 2; }
HUB_BIN=${REFCOUNT_BIN:-$HUB_BIN}
use_hub_server release
work_tmp refcounts
port=$(free_port)
python3 "$BENCH_DIR/matrix_config.py" "$WORK_TMP/config" "$port" --sizes "2 40" --chains static >/dev/null
HUB_DATA_DIR="$WORK_TMP/data" start_hub "$WORK_TMP/config" "$port" "$WORK_TMP/hub.log"
hub="http://127.0.0.1:$port"

library=$(ldd "$HUB_BIN" | awk '/libswiftCore\.so/ { print $3 }')
[ -n "$library" ] || { echo "hub-server does not link libswiftCore dynamically" >&2; exit 2; }
# Uprobe events named for this script (removed on exit): the library's entry points.
perf probe -q -d 'hubrc:*' 2>/dev/null || true
perf probe -q -x "$library" -a 'hubrc:retain=swift_retain' -a 'hubrc:release=swift_release'
trap 'perf probe -q -d "hubrc:*" 2>/dev/null || true; cleanup' EXIT

app=("${APP_CLIENT_HEADERS[@]}")

# count URL [WRK_ARG...]: "RETAINS RELEASES" per request.
count() {
    local url=$1 stat="$WORK_TMP/stat.txt" recorder requests
    shift
    timeout 10 wrk -t1 -c2 -d1s "$@" "$url" >/dev/null  # warm
    perf stat -x, -e hubrc:retain -e hubrc:release -p "$HUB_PID" -o "$stat" -- sleep 1.4 &
    recorder=$!
    sleep 0.15
    requests=$(timeout 10 wrk -t1 -c2 -d1s "$@" "$url" | awk '/requests in/ { print $1 }')
    wait "$recorder"
    awk -F, -v n="$requests" '/hubrc:retain/ { r = $1 } /hubrc:release/ { d = $1 } END { printf "%.1f %.1f\n", r / n, d / n }' "$stat"
}

echo "| view | endpoint | client | retains/request | releases/request |"
echo "|---|---|---|---|---|"
for name in static2 static40; do
    token=$(held_session_of "$hub/view?uri=hub:$name-always")
    for endpoint in session uri; do
        case $endpoint in
        session) url="$hub/view?session=$token" ;;
        uri) url="$hub/view?uri=hub:$name-always" ;;
        esac
        for client in wrk app gzip; do
            case $client in
            wrk) headers=() ;;
            app) headers=("${app[@]}") ;;
            gzip) headers=(-H 'Accept-Encoding: gzip') ;;
            esac
            read -r retains releases < <(count "$url" "${headers[@]}")
            echo "| ${name#static} KB | $endpoint | $client | $retains | $releases |"
        done
    done
done

if [ "${REFCOUNT_STACKS:-0}" = 1 ]; then
    token=$(session_of "$hub/view?uri=hub:static2-always")
    data="$WORK_TMP/stacks.data"
    perf record -q -e hubrc:retain -e hubrc:release -g -p "$HUB_PID" -o "$data" -- sleep 1.2 >/dev/null 2>&1 &
    recorder=$!
    sleep 0.15
    timeout 10 wrk -t1 -c2 -d1s "$hub/view?session=$token" >/dev/null
    wait "$recorder" || true
    set +o pipefail  # head closes the pipe early
    echo "== the held 2 KB view's top callers of swift_retain and swift_release (share of all calls)"
    # perf script prints each call's stack, innermost first: the second frame is the caller.
    perf script -i "$data" -F ip,sym 2>/dev/null | awk '
        NF == 0 { frame = 0; next }
        { frame++; if (frame == 2) { sub(/^[ \t]*[0-9a-f]+ /, ""); calls[$0]++; total++ } }
        END { for (c in calls) printf "%6.2f %%  %s\n", 100 * calls[c] / total, c }' \
        | sort -rn | head -n 30 | swift demangle --simplified | cut -c1-160
fi
