#!/usr/bin/env bash
# The benchmark matrix: GET /view against nginx serving the same bytes, per view size, chain
# shape, endpoint, reload policy, gzip, wrk threads and connections; each cell a ratio to nginx
# measured in the same rounds, with both p99s, both servers' CPU per request and allocation
# calls per request (docs/PERFORMANCE.md "Benchmark matrix"). compare.sh's method: both servers
# run at once and are measured in alternation (round-robin wrk runs), the median of the rounds
# kept, so that a shared machine's drift hits both alike.
#
#   Benchmarks/bench/matrix.sh                 (make bench-matrix) the full run: 256 cells, about
#                                              1 h 45 min (the script prints its estimate)
#   MATRIX_QUICK=1 Benchmarks/bench/matrix.sh  a smoke run: one 1 s round per server and cell, no
#                                              warm-up (about 12 minutes for the 256 cells)
#   knobs: MATRIX_ROUNDS=5 MATRIX_SECONDS=2 MATRIX_SIZES="1 16 64 256" (any sizes in KB)
#          MATRIX_CHAINS="static remote" MATRIX_THREADS="1 2" MATRIX_CONNS="32 512"
#          MATRIX_ENDPOINTS="uri session" (add `sessions` for many clients' sessions)
#          MATRIX_SESSIONS=64 (how many, for `sessions`) MATRIX_RELOADS="always never" MATRIX_GZIP="no yes"
#          MATRIX_ALLOCS=1 (0: no allocation shim, "-" in those columns)
#          MATRIX_CLIENT=wrk (wrk's own request: Host only) or app (each request also carries
#          what an app's client sends: User-Agent, Accept, Accept-Language, Hub-Client,
#          Hub-Components listing the views' components, traceparent; sessions are opened with
#          them too, and both servers get them)
#          MATRIX_BIN=.build/release/hub-server MATRIX_OUT=FILE (the markdown table; default:
#          stdout only)
#          MATRIX_AA=1: the method's own noise floor, an A/A run. A second nginx, serving the
#          same files, takes HubServer's place in every cell (HubServer still makes the bytes);
#          the ratios then say how far two identical servers land apart in these rounds
#          (MATRIX_AA_PORT=18084: the second nginx's port).
#          MATRIX_CLIENT_CPUS and MATRIX_SERVER_CPUS (taskset lists, such as 0-1 and 2-3): wrk on
#          the first, every server thread on the second, so that the client does not share the
#          servers' cores (a machine of 4 cores or more; unset, nothing is pinned).
#
# Cells: view size (KB of JSON, generated into a temporary config by matrix_config.py), chain
# (`static`: one static operation; `remote`: static + patch + a remote operation fetched from
# the local upstream, fresh by Cache-Control: max-age), endpoint (`uri`: GET /view?uri=,
# memoized, no session stored; `session`: GET /view?session= of a held session; `sessions`, not
# run unless named: MATRIX_SESSIONS held sessions of the view, each request asking for the next
# of them through sessions.lua, and nginx's file asked for through the same script with those
# tokens as a query it ignores, so that wrk does the same work per request for both), reload
# (`always`, the default, or `never`), gzip (nginx serves the same gzip bytes with gzip_static;
# a view under gzip.minBytes is sent as is by both), wrk -t, -c.
#
# Per request (lib.sh's measure_run, over exactly each wrk run): CPU is user+system time from
# /proc/PID/stat, of hub-server and of nginx's worker processes; allocations are the
# malloc/calloc/realloc/memalign-family calls counted by alloc_count.c, preloaded into both
# servers (built with cc into the temporary folder). Loopback only; every server is stopped on
# exit.
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
chains=${MATRIX_CHAINS:-"static remote"}
threads_list=${MATRIX_THREADS:-"1 2"}
conns_list=${MATRIX_CONNS:-"32 512"}
endpoints=${MATRIX_ENDPOINTS:-"uri session"}
reloads=${MATRIX_RELOADS:-"always never"}
gzips=${MATRIX_GZIP:-"no yes"}
allocs=${MATRIX_ALLOCS:-1}
many=${MATRIX_SESSIONS:-64}
for endpoint in $endpoints; do
    case $endpoint in
    uri | session | sessions) ;;
    *)
        echo "MATRIX_ENDPOINTS: uri, session or sessions, not $endpoint" >&2
        exit 2
        ;;
    esac
done
client=${MATRIX_CLIENT:-wrk}
case $client in
wrk) client_headers=() ;;
app) client_headers=("${APP_CLIENT_HEADERS[@]}") ;;
*)
    echo "MATRIX_CLIENT must be wrk or app, not $client" >&2
    exit 2
    ;;
esac
hub_port=${MATRIX_HUB_PORT:-18095}
server_cpus=${MATRIX_SERVER_CPUS:-}
if [ -n "${MATRIX_CLIENT_CPUS:-}" ]; then export WRK_CPUS=$MATRIX_CLIENT_CPUS; fi
# pin_server PID...: every thread of each process onto MATRIX_SERVER_CPUS (when set).
pin_server() {
    [ -n "$server_cpus" ] || return 0
    local pid
    for pid in "$@"; do taskset -a -cp "$server_cpus" "$pid" >/dev/null; done
}
HUB_BIN=${MATRIX_BIN:-$HUB_BIN}

cleanup_on_exit
ensure_tools
raise_nofile
use_hub_server release
work_tmp matrix
config="$WORK_TMP/config"
python3 "$BENCH_DIR/matrix_config.py" "$config" "$hub_port" --sizes "$sizes" --chains "$chains" \
    --upstream-port "$UPSTREAM_PORT" --upstream-dir "$WORK_TMP/upstream-files"
case " $chains " in *" remote "*) start_upstream 14400 --files "$WORK_TMP/upstream-files" ;; esac

# Both servers preload the allocation shim, each counting into its own file.
preload="" hub_counter=- nginx_counter=-
if [ "$allocs" = 1 ]; then
    build_alloc_shim
    preload=$ALLOC_SHIM
    hub_counter=$(alloc_counter hub)
    nginx_counter=$(alloc_counter nginx)
fi
HUB_DATA_DIR="$WORK_TMP/data" LD_PRELOAD=$preload ALLOC_COUNT_FILE=${hub_counter#-} start_hub "$config" "$hub_port" "$WORK_TMP/hub.log"
hub="http://127.0.0.1:$hub_port"
pin_server "$HUB_PID"

# nginx serves, per view, the bytes the hub answers (identity, and gzip when the hub gzips).
html="$WORK_TMP/html"
mkdir -p "$html"
views=()
for size in $sizes; do
    for chain in $chains; do
        name=$chain$size
        views+=("$name")
        curl -sf "$hub/view?uri=hub:$name-always" -o "$html/$name.json"
        encoding=$(curl -sf -H 'Accept-Encoding: gzip' -D- -o "$html/$name.json.gz" "$hub/view?uri=hub:$name-always" \
            | tr -d '\r' | awk -F': ' 'tolower($1)=="content-encoding"{print $2}')
        [ "$encoding" = gzip ] || rm -f "$html/$name.json.gz"
        # The client's headers must not change the bytes (its Hub-Components lists every
        # component of the views), or the two servers would not be sending the same thing.
        if [ ${#client_headers[@]} -gt 0 ] && ! curl -sf "${client_headers[@]}" "$hub/view?uri=hub:$name-always" | cmp -s - "$html/$name.json"; then
            echo "view $name: the $client client's headers change what HubServer sends" >&2
            exit 1
        fi
        log "view $name: $(stat -c %s "$html/$name.json") bytes$([ -f "$html/$name.json.gz" ] && echo ", gzip $(stat -c %s "$html/$name.json.gz")")"
    done
done
cp "$html/${views[0]}.json" "$html/view.json"  # start_nginx waits for view.json
chmod -R a+rX "$html"
LD_PRELOAD=$preload ALLOC_COUNT_FILE=${nginx_counter#-} start_nginx "$html"
nginx="http://127.0.0.1:$NGINX_PORT"
workers=$(nginx_workers)
pin_server "$NGINX_PID" ${workers//,/ }
# What the first column measures: HubServer, or for MATRIX_AA=1 a second nginx.
first=$hub first_pids=$HUB_PID first_name=HubServer
if [ "${MATRIX_AA:-0}" = 1 ]; then
    nginx_master=$NGINX_PID
    aa_port=${MATRIX_AA_PORT:-18084}
    NGINX_PORT=$aa_port LD_PRELOAD=$preload ALLOC_COUNT_FILE=${hub_counter#-} start_nginx "$html" nginx-b
    first="http://127.0.0.1:$aa_port" first_pids=$(nginx_workers) first_name="nginx B"
    pin_server "$NGINX_PID" ${first_pids//,/ }
    NGINX_PID=$nginx_master
    log "A/A run: a second nginx ($first, workers $first_pids) in HubServer's place"
fi

declare -A session
for name in "${views[@]}"; do
    for reload in $reloads; do
        session[$name-$reload]=$(held_session_of "$hub/view?uri=hub:$name-$reload" "${client_headers[@]}")  # held (protected)
        # For `sessions`: MATRIX_SESSIONS more, held, as request targets for each server.
        if [[ " $endpoints " == *" sessions "* ]]; then
            : >"$WORK_TMP/targets-hub-$name-$reload"
            : >"$WORK_TMP/targets-nginx-$name-$reload"
            for _ in $(seq "$many"); do
                token=$(held_session_of "$hub/view?uri=hub:$name-$reload" "${client_headers[@]}")
                echo "/view?session=$token" >>"$WORK_TMP/targets-hub-$name-$reload"
                echo "/$name.json?session=$token" >>"$WORK_TMP/targets-nginx-$name-$reload"
            done
        fi
    done
done

# cell_line SIZE CHAIN ENDPOINT RELOAD GZIP THREADS CONNS HUB_URL NGINX_URL [WRK_ARG...]: the
# alternating rounds of one cell, printed as a table row. With HUB_TARGETS and NGINX_TARGETS
# set (files of request targets), wrk asks for them through sessions.lua instead of the URLs.
cell_line() {
    local size=$1 chain=$2 endpoint=$3 reload=$4 gzip=$5 threads=$6 conns=$7 hub_url=$8 nginx_url=$9
    shift 9
    local -a hub_args=("$@") nginx_args=("$@")
    if [ -n "${HUB_TARGETS:-}" ]; then
        hub_args=(-s "$BENCH_DIR/sessions.lua" "$@") nginx_args=(-s "$BENCH_DIR/sessions.lua" "$@")
    fi
    local -a h_rate=() h_p99=() h_cpu=() h_alloc=() n_rate=() n_p99=() n_cpu=() n_alloc=()
    local rate p99 cpu user alloc
    if [ "$warm" = 1 ]; then
        TARGETS_FILE=${HUB_TARGETS:-} measure_run "$threads" "$conns" 1 "$hub_url" "$first_pids" - "${hub_args[@]}" >/dev/null
        TARGETS_FILE=${NGINX_TARGETS:-} measure_run "$threads" "$conns" 1 "$nginx_url" "$workers" - "${nginx_args[@]}" >/dev/null
    fi
    for _ in $(seq "$rounds"); do
        read -r rate p99 cpu user alloc < <(TARGETS_FILE=${HUB_TARGETS:-} measure_run "$threads" "$conns" "$seconds" \
            "$hub_url" "$first_pids" "$hub_counter" "${hub_args[@]}")
        h_rate+=("$rate") h_p99+=("$p99") h_cpu+=("$cpu") h_alloc+=("$alloc")
        read -r rate p99 cpu user alloc < <(TARGETS_FILE=${NGINX_TARGETS:-} measure_run "$threads" "$conns" "$seconds" \
            "$nginx_url" "$workers" "$nginx_counter" "${nginx_args[@]}")
        n_rate+=("$rate") n_p99+=("$p99") n_cpu+=("$cpu") n_alloc+=("$alloc")
    done
    local h n ratio ha na
    h=$(median "${h_rate[@]}") n=$(median "${n_rate[@]}")
    ratio=$(awk -v a="$h" -v b="$n" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    if [ "$allocs" = 1 ]; then
        ha=$(median "${h_alloc[@]}") na=$(median "${n_alloc[@]}")
    else
        ha=- na=-
    fi
    echo "| $size | $chain | $endpoint | $reload | $gzip | $threads | $conns | $h | $n | **${ratio}x** |" \
        "$(median "${h_p99[@]}") | $(median "${n_p99[@]}") | $(median "${h_cpu[@]}") | $(median "${n_cpu[@]}") | $ha | $na |"
}

count() { wc -w <<<"$1"; }
cells=$(($(count "$sizes") * $(count "$chains") * $(count "$endpoints") * $(count "$reloads") * $(count "$gzips") \
    * $(count "$threads_list") * $(count "$conns_list")))
# Per cell: the rounds and warm-up runs of both servers, each with about 0.2 s of wrk start-up and /proc reads.
estimate=$(awk -v c="$cells" -v r="$rounds" -v s="$seconds" -v w="$warm" 'BEGIN { printf "%d", c * (2 * r * (s + 0.2) + 2 * w * 1.2) / 60 + 1 }')
log "matrix: $cells cells (sizes $sizes; chains $chains; endpoints $endpoints; reload $reloads; gzip $gzips;"\
" threads $threads_list; connections $conns_list; client $client; wrk on CPUs ${WRK_CPUS:-any}, servers on ${server_cpus:-any}),"\
" $rounds round(s) of ${seconds}s per server and cell; about $estimate minutes"
table="| size KB | chain | endpoint | reload | gzip | wrk -t | conns | $first_name req/s | nginx req/s | ratio | $first_name p99 ms | nginx p99 ms | $first_name CPU µs/req | nginx CPU µs/req | $first_name allocs/req | nginx allocs/req |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
started=$(date +%s)
for size in $sizes; do
    for chain in $chains; do
        name=$chain$size
        for endpoint in $endpoints; do
            for reload in $reloads; do
                for gzip in $gzips; do
                    header=("${client_headers[@]}")
                    [ "$gzip" = yes ] && header+=(-H 'Accept-Encoding: gzip')
                    hub_targets="" nginx_targets=""
                    case $endpoint in
                    uri) hub_url="$hub/view?uri=hub:$name-$reload" ;;
                    session) hub_url="$hub/view?session=${session[$name-$reload]}" ;;
                    sessions)
                        hub_url="$hub/view?session=${session[$name-$reload]}"  # the host wrk connects to
                        hub_targets="$WORK_TMP/targets-hub-$name-$reload"
                        nginx_targets="$WORK_TMP/targets-nginx-$name-$reload"
                        ;;
                    esac
                    if [ "$first" != "$hub" ]; then  # A/A: the second nginx, asked as the first is
                        hub_url="$first/$name.json"
                        [ -z "$hub_targets" ] || hub_targets=$nginx_targets
                    fi
                    for threads in $threads_list; do
                        for conns in $conns_list; do
                            line=$(HUB_TARGETS=$hub_targets NGINX_TARGETS=$nginx_targets cell_line "$size" "$chain" \
                                "$endpoint" "$reload" "$gzip" "$threads" "$conns" "$hub_url" "$nginx/$name.json" "${header[@]}")
                            log "$line"
                            table="$table
$line"
                        done
                    done
                done
            done
        done
    done
done
echo "$table"
if [ -n "${MATRIX_OUT:-}" ]; then echo "$table" >"$MATRIX_OUT"; fi
log "git $(cd "$REPO_DIR" && git rev-parse --short HEAD), $(($(date +%s) - started)) s for $cells cells, load average $(load_average), $(nproc) cores"
