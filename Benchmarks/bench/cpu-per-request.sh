#!/usr/bin/env bash
# CPU time a running server spends per request: the user and system time of its threads (from
# /proc/PID/task/*/stat) across a 2 s `wrk -t2 -c32` run, divided by the requests wrk completed.
# Steadier than req/s on a shared machine (a neighbour's load slows every run, but costs little
# CPU in ours): the method of the third pass in docs/PERFORMANCE.md.
#
#   Benchmarks/bench/cpu-per-request.sh ROUNDS URL@PID[,PID...] [URL@PID...]
#   BENCH_GZIP=0 to send no Accept-Encoding: gzip.
# Prints per URL the median req/s and the median microseconds of server CPU per request (all,
# then user time alone: the part the server's own code decides; system time is mostly the
# loopback TCP stack, which a sender pays for its receiver too).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS URL@PID[,PID...] [URL@PID...]" >&2; exit 2; }
rounds=$1
shift
header=(-H 'Accept-Encoding: gzip')
[ "${BENCH_GZIP:-1}" = 0 ] && header=()
ticks() { # clock ticks of every thread of the pids in $1 (comma-separated): "user system"
    local user=0 system=0 pid stat fields
    for pid in ${1//,/ }; do
        for stat in /proc/"$pid"/task/*/stat; do
            read -r -a fields <<<"$(sed 's/.*) //' "$stat")"
            user=$((user + fields[11]))
            system=$((system + fields[12]))
        done
    done
    echo "$user $system"
}
declare -A cpu usr rate
for _ in $(seq "$rounds"); do
    for spec in "$@"; do
        url=${spec%@*}
        pids=${spec##*@}
        read -r user0 system0 <<<"$(ticks "$pids")"
        out=$(timeout 20 wrk -t2 -c32 -d2s "${header[@]}" "$url")
        read -r user1 system1 <<<"$(ticks "$pids")"
        requests=$(awk '/requests in/ { print $1 }' <<<"$out")
        hz=$(getconf CLK_TCK)
        per() { awk -v t="$1" -v n="$requests" -v hz="$hz" 'BEGIN { printf "%.2f", t * 1e6 / hz / n }'; }
        cpu[$spec]="${cpu[$spec]:-} $(per $((user1 + system1 - user0 - system0)))"
        usr[$spec]="${usr[$spec]:-} $(per $((user1 - user0)))"
        rate[$spec]="${rate[$spec]:-} $(awk '/Requests\/sec/ { printf "%d", $2 }' <<<"$out")"
    done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for spec in "$@"; do
    printf '%8s req/s  %6s us CPU/request, %6s us user  (%s)  %s\n' "$(median ${rate[$spec]})" \
        "$(median ${cpu[$spec]})" "$(median ${usr[$spec]})" "${cpu[$spec]# }" "${spec%@*}"
done
