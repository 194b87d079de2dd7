#!/usr/bin/env bash
# CPU time a running server spends per request: the user and system time of its processes (all
# threads, from /proc/PID/stat) across a 2 s `wrk -t2 -c32` run, divided by the requests wrk
# completed (lib.sh's measure_run, which the benchmark matrix uses too). Steadier than req/s on
# a shared machine (a neighbour's load slows every run, but costs little CPU in ours): the
# method of the third pass in docs/PERFORMANCE.md.
#
#   Benchmarks/bench/cpu-per-request.sh ROUNDS URL@PID[,PID...] [URL@PID...]
#   BENCH_GZIP=0 to send no Accept-Encoding: gzip; BENCH_THREADS and BENCH_CONNS for another
#   client shape than wrk's 2 threads and 32 connections; BENCH_CLIENT=app to send what an
#   app's client sends too (lib.sh's APP_CLIENT_HEADERS, as MATRIX_CLIENT=app).
#   BENCH_SESSIONS=N for many clients polling their own sessions: a URL of the form
#   .../view?uri=U stands for N sessions opened from it (with the client's fields, each used
#   again so it is held), and every request asks for the next of them (sessions.lua); other
#   URLs (nginx's file) go through the same script, with the first server's session tokens as
#   a query the file server ignores, so that wrk does the same work per request for both.
# Prints per URL the median req/s and the median microseconds of server CPU per request (all,
# then user time alone: the part the server's own code decides; system time is mostly the
# loopback TCP stack, which a sender pays for its receiver too).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS URL@PID[,PID...] [URL@PID...]" >&2; exit 2; }
rounds=$1
shift
header=(-H 'Accept-Encoding: gzip')
[ "${BENCH_GZIP:-1}" = 0 ] && header=()
case ${BENCH_CLIENT:-wrk} in
wrk) ;;
app) header+=("${APP_CLIENT_HEADERS[@]}") ;;
*) echo "BENCH_CLIENT must be wrk or app" >&2; exit 2 ;;
esac
# Per spec, the many-sessions script's file of request targets (none: wrk asks for the URL).
declare -A script
sessions=${BENCH_SESSIONS:-0}
if [ "$sessions" -gt 0 ]; then
    tokens_dir=$(mktemp -d)
    trap 'rm -rf "$tokens_dir"' EXIT
    tokens=()
    for spec in "$@"; do
        url=${spec%@*}
        case $url in
        *"/view?uri="*)
            file="$tokens_dir/$(echo "$spec" | md5sum | cut -c1-12)"
            for _ in $(seq "$sessions"); do
                token=$(held_session_of "$url" "${header[@]}")
                echo "/view?session=$token" >> "$file"
                tokens+=("$token")
            done
            script[$spec]=$file
            ;;
        esac
    done
    [ ${#tokens[@]} -gt 0 ] || { echo "BENCH_SESSIONS needs a /view?uri= URL" >&2; exit 2; }
    for spec in "$@"; do
        [ -z "${script[$spec]:-}" ] || continue
        url=${spec%@*}
        path=/${url#*://*/}
        file="$tokens_dir/$(echo "$spec" | md5sum | cut -c1-12)"
        for token in "${tokens[@]:0:$sessions}"; do echo "$path?session=$token" >> "$file"; done
        script[$spec]=$file
    done
fi
declare -A cpu usr rate
for _ in $(seq "$rounds"); do
    for spec in "$@"; do
        extra=()
        [ -n "${script[$spec]:-}" ] && extra=(-s "$(dirname "$0")/sessions.lua")
        read -r r _ c u _ < <(TARGETS_FILE=${script[$spec]:-} measure_run "${BENCH_THREADS:-2}" "${BENCH_CONNS:-32}" 2 \
            "${spec%@*}" "${spec##*@}" - "${extra[@]}" "${header[@]}")
        cpu[$spec]="${cpu[$spec]:-} $c"
        usr[$spec]="${usr[$spec]:-} $u"
        rate[$spec]="${rate[$spec]:-} $r"
    done
done
for spec in "$@"; do
    printf '%8s req/s  %6s us CPU/request, %6s us user  (%s)  %s\n' "$(median ${rate[$spec]})" \
        "$(median ${cpu[$spec]})" "$(median ${usr[$spec]})" "${cpu[$spec]# }" "${spec%@*}"
done
