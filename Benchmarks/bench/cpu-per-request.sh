#!/usr/bin/env bash
# CPU time a running server spends per request: the user and system time of its threads (from
# /proc/PID/task/*/stat) across a 2 s `wrk -t2 -c32` run, divided by the requests wrk completed.
# Steadier than req/s on a shared machine (a neighbour's load slows every run, but costs little
# CPU in ours): the method of the third pass in docs/PERFORMANCE.md.
#
#   Benchmarks/bench/cpu-per-request.sh ROUNDS URL@PID[,PID...] [URL@PID...]
#   BENCH_GZIP=0 to send no Accept-Encoding: gzip.
# Prints per URL the median req/s and the median microseconds of server CPU per request.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS URL@PID[,PID...] [URL@PID...]" >&2; exit 2; }
rounds=$1
shift
header=(-H 'Accept-Encoding: gzip')
[ "${BENCH_GZIP:-1}" = 0 ] && header=()
ticks() { # clock ticks (user + system) of every thread of the pids in $1 (comma-separated)
    local total=0 pid stat fields
    for pid in ${1//,/ }; do
        for stat in /proc/"$pid"/task/*/stat; do
            read -r -a fields <<<"$(sed 's/.*) //' "$stat")"
            total=$((total + fields[11] + fields[12]))
        done
    done
    echo "$total"
}
declare -A cpu rate
for _ in $(seq "$rounds"); do
    for spec in "$@"; do
        url=${spec%@*}
        pids=${spec##*@}
        before=$(ticks "$pids")
        out=$(timeout 20 wrk -t2 -c32 -d2s "${header[@]}" "$url")
        after=$(ticks "$pids")
        requests=$(awk '/requests in/ { print $1 }' <<<"$out")
        hz=$(getconf CLK_TCK)
        cpu[$spec]="${cpu[$spec]:-} $(awk -v t=$((after - before)) -v n="$requests" -v hz="$hz" 'BEGIN { printf "%.2f", t * 1e6 / hz / n }')"
        rate[$spec]="${rate[$spec]:-} $(awk '/Requests\/sec/ { printf "%d", $2 }' <<<"$out")"
    done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for spec in "$@"; do
    printf '%8s req/s  %6s us CPU/request  (%s)  %s\n' "$(median ${rate[$spec]})" "$(median ${cpu[$spec]})" \
        "${cpu[$spec]# }" "${spec%@*}"
done
