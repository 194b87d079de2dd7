#!/usr/bin/env bash
# The benchmark matrix: GET /view against nginx serving the same bytes, per view size, endpoint,
# reload policy, gzip, wrk threads and connections, each cell a ratio to nginx measured in the
# same rounds, with p99 (docs/PERFORMANCE.md "Benchmark matrix"). compare.sh's method: both
# servers run at once and are measured in alternation (round-robin wrk runs), the median of
# the rounds kept, so that a shared machine's drift hits both alike.
#
#   Benchmarks/bench/matrix.sh                 (make bench-matrix) the full run, about 50 minutes
#   MATRIX_QUICK=1 Benchmarks/bench/matrix.sh  a smoke run: one 1 s round per server and cell, no
#                                              warm-up (about 5 minutes)
#   knobs: MATRIX_ROUNDS=5 MATRIX_SECONDS=2 MATRIX_SIZES="1 16 64 256" MATRIX_THREADS="1 2"
#          MATRIX_CONNS="32 512" MATRIX_OUT=FILE (the markdown table; default: stdout only)
#
# Cells: view size (KB, a static view generated into a temporary config by matrix_config.py),
# endpoint (`uri`: GET /view?uri=, memoized, no session stored; `session`: GET /view?session=
# of a held session), reload (`always`, the default, or `never`), gzip (nginx serves the same
# gzip bytes with gzip_static; a view under gzip.minBytes is sent as is by both), wrk -t, -c.
# Loopback only; every server is stopped on exit.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ "${MATRIX_QUICK:-0}" = 1 ]; then
    rounds=${MATRIX_ROUNDS:-1}
    seconds=${MATRIX_SECONDS:-1}
    warm=0
else
    rounds=${MATRIX_ROUNDS:-5}
    seconds=${MATRIX_SECONDS:-2}
    warm=1
fi
sizes=${MATRIX_SIZES:-"1 16 64 256"}
threads_list=${MATRIX_THREADS:-"1 2"}
conns_list=${MATRIX_CONNS:-"32 512"}
hub_port=${MATRIX_HUB_PORT:-18095}

trap bench_cleanup EXIT
ensure_tools
raise_nofile
[ -x "$HUB_BIN" ] || build_hub
bench_init_tmp
config="$BENCH_TMP/config"
python3 "$BENCH_DIR/matrix_config.py" "$config" "$hub_port" "$(echo $sizes | tr ' ' ',')"
start_hub "$config" "$hub_port" "$BENCH_TMP/hub.log"
hub="http://127.0.0.1:$hub_port"

# nginx serves, per size, the bytes the hub answers (identity, and gzip when the hub gzips).
mkdir -p "$BENCH_TMP/html"
for size in $sizes; do
    curl -sf "$hub/view?uri=hub:m$size-always" -o "$BENCH_TMP/html/m$size.json"
    encoding=$(curl -sf -H 'Accept-Encoding: gzip' -D- -o "$BENCH_TMP/html/m$size.json.gz" "$hub/view?uri=hub:m$size-always" \
        | tr -d '\r' | awk -F': ' 'tolower($1)=="content-encoding"{print $2}')
    [ "$encoding" = gzip ] || rm -f "$BENCH_TMP/html/m$size.json.gz"
done
cp "$BENCH_TMP/html/m${sizes%% *}.json" "$BENCH_TMP/html/view.json"  # start_nginx waits for view.json
chmod -R a+rX "$BENCH_TMP/html"
start_nginx "$BENCH_TMP/html"
nginx="http://127.0.0.1:$NGINX_PORT"

declare -A session
for size in $sizes; do
    for reload in always never; do
        token=$(session_of "$hub/view?uri=hub:m$size-$reload")
        curl -sf -o /dev/null "$hub/view?session=$token"  # used again: held (protected)
        session[$size-$reload]=$token
    done
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run_wrk THREADS CONNS SECONDS URL [HEADER...]: prints "req/s p99_ms".
run_wrk() {
    local threads=$1 conns=$2 duration=$3 url=$4
    shift 4
    timeout $((duration + 20)) wrk -t"$threads" -c"$conns" -d"${duration}s" --latency "$@" "$url" | awk '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /Requests\/sec/ { rate = $2 }
        $1 == "99%" { p99 = ms($2) }
        /Non-2xx/ { bad = $NF }
        END { if (bad > 0) rate = 0; printf "%d %.2f\n", rate, p99 }'
}

table="| size KB | endpoint | reload | gzip | wrk -t | conns | HubServer req/s | nginx req/s | ratio | HubServer p99 ms | nginx p99 ms |
|---|---|---|---|---|---|---|---|---|---|---|"
log "matrix: sizes $sizes, threads $threads_list, connections $conns_list, $rounds round(s) of ${seconds}s per server and cell"
for size in $sizes; do
    for endpoint in uri session; do
        for reload in always never; do
            for gzip in no yes; do
                header=()
                [ "$gzip" = yes ] && header=(-H 'Accept-Encoding: gzip')
                case $endpoint in
                uri) hub_url="$hub/view?uri=hub:m$size-$reload" ;;
                session) hub_url="$hub/view?session=${session[$size-$reload]}" ;;
                esac
                nginx_url="$nginx/m$size.json"
                for threads in $threads_list; do
                    for conns in $conns_list; do
                        hub_rates=() hub_p99=() nginx_rates=() nginx_p99=()
                        if [ "$warm" = 1 ]; then
                            run_wrk "$threads" "$conns" 1 "$hub_url" "${header[@]}" >/dev/null
                            run_wrk "$threads" "$conns" 1 "$nginx_url" "${header[@]}" >/dev/null
                        fi
                        for _ in $(seq "$rounds"); do
                            read -r rate p99 < <(run_wrk "$threads" "$conns" "$seconds" "$hub_url" "${header[@]}")
                            hub_rates+=("$rate") hub_p99+=("$p99")
                            read -r rate p99 < <(run_wrk "$threads" "$conns" "$seconds" "$nginx_url" "${header[@]}")
                            nginx_rates+=("$rate") nginx_p99+=("$p99")
                        done
                        h=$(median "${hub_rates[@]}") n=$(median "${nginx_rates[@]}")
                        hp=$(median "${hub_p99[@]}") np=$(median "${nginx_p99[@]}")
                        ratio=$(awk -v a="$h" -v b="$n" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
                        line="| $size | $endpoint | $reload | $gzip | $threads | $conns | $h | $n | **${ratio}x** | $hp | $np |"
                        log "$line"
                        table="$table
$line"
                    done
                done
            done
        done
    done
done
echo "$table"
[ -n "${MATRIX_OUT:-}" ] && echo "$table" >"$MATRIX_OUT"
log "git $(cd "$REPO_DIR" && git rev-parse --short HEAD), load average $(load_average), $(nproc) cores"
