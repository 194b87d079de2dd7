#!/usr/bin/env bash
# Compares hub-server builds with each other and with nginx on GET /view, all running at once
# and measured in alternation (2 s wrk runs, round-robin), so that a shared machine's drift hits
# every server alike: the method for before/after figures in docs/PERFORMANCE.md.
#
#   Benchmarks/bench/compare.sh BIN [BIN...]       each BIN a hub-server binary (e.g. a release
#                                                  build of an older commit, kept in /tmp)
#   COMPARE_ROUNDS=7 COMPARE_SPECS="sgz s ugz u"   rounds per cell; cells: s = /view?session=,
#                                                  u = /view?uri= (memoized: lazy), gz = with gzip
# Prints, per cell, the median req/s of each server and its ratio to nginx in the same rounds.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 HUB_BINARY [HUB_BINARY...]" >&2; exit 2; }
rounds=${COMPARE_ROUNDS:-7}
specs=${COMPARE_SPECS:-"sgz s ugz u"}
cleanup_on_exit
ensure_tools
raise_nofile
work_tmp bench
start_upstream 3600

binaries=("$@")
ports=()
index=0
for binary in "$@"; do
    [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }
    port=$((18090 + index))
    index=$((index + 1))
    HUB_BIN=$binary start_hub "$BENCH_DIR/config" "$port" "$WORK_TMP/hub-$port.log"
    ports+=("$port")
done

# nginx serves the bytes the first server answers (identity and gzip).
mkdir -p "$WORK_TMP/html"
curl -sf "http://127.0.0.1:${ports[0]}/view?uri=hub:bench" -o "$WORK_TMP/html/view.json"
curl -sf -H 'Accept-Encoding: gzip' "http://127.0.0.1:${ports[0]}/view?uri=hub:bench" -o "$WORK_TMP/html/view.json.gz"
chmod -R a+rX "$WORK_TMP/html"
start_nginx "$WORK_TMP/html"

declare -A session
for port in "${ports[@]}"; do
    session[$port]=$(session_of "http://127.0.0.1:$port/view?uri=hub:bench")
    curl -sf -o /dev/null "http://127.0.0.1:$port/view?session=${session[$port]}"  # used again: held
done

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for spec in $specs; do
    declare -A url=() results=()
    header=()
    case $spec in *gz) header=(-H 'Accept-Encoding: gzip') ;; esac
    url[nginx]="http://127.0.0.1:$NGINX_PORT/view.json"
    for port in "${ports[@]}"; do
        case $spec in
        s*) url[$port]="http://127.0.0.1:$port/view?session=${session[$port]}" ;;
        *) url[$port]="http://127.0.0.1:$port/view?uri=hub:bench" ;;
        esac
    done
    servers=(nginx "${ports[@]}")
    for server in "${servers[@]}"; do timeout 20 wrk -t2 -c32 -d1s "${header[@]}" "${url[$server]}" >/dev/null; done
    for _ in $(seq "$rounds"); do
        for server in "${servers[@]}"; do
            rate=$(timeout 20 wrk -t2 -c32 -d2s "${header[@]}" "${url[$server]}" | awk '/Requests\/sec/ { printf "%d", $2 }')
            results[$server]="${results[$server]:-} $rate"
        done
    done
    nginx_median=$(median ${results[nginx]})
    line="$spec: nginx $nginx_median"
    index=0
    for port in "${ports[@]}"; do
        value=$(median ${results[$port]})
        line="$line | $(basename "${binaries[$index]}") $value ($(awk -v a="$value" -v b="$nginx_median" 'BEGIN { printf "%.2f", a / b }')x)"
        index=$((index + 1))
    done
    echo "$line"
done
