# Helpers of Benchmarks/run.sh, Benchmarks/bench/*.sh, Benchmarks/reload/sighup-storm.sh and
# Benchmarks/state/todo-add.sh, on top of the shell library of the system checks
# (Tests/system/lib.sh: processes stopped on exit, ports, waiting, tools, starting hub-server,
# the Python upstream): the fixed ports, the release builds, nginx serving a static file, the
# Hummingbird app, the demo config with sessions opened in bulk, and one measured wrk run with
# the servers' CPU and allocations per request. Source it from bash with `set -euo pipefail`.
# Every server listens on 127.0.0.1 only.
#
#   servers     build_hummingbird, start_hummingbird, start_nginx HTML_DIR, nginx_workers
#   demo        bench_demo_setup, open_sessions URL COUNT [THREADS], hub_metric BASE_URL NAME
#   measuring   median VALUE..., cpu_ticks PID..., build_alloc_shim, alloc_counter NAME,
#               alloc_count FILE, measure_run THREADS CONNS SECONDS URL PIDS COUNTER [WRK_ARG...]
#   clients     APP_CLIENT_HEADERS (what an app's client sends besides wrk's Host)

source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../Tests/system/lib.sh"
HB_DIR="$REPO_DIR/Benchmarks/HummingbirdApp"
HUB_BIN="$REPO_DIR/.build/release/hub-server"
HB_BIN="$HB_DIR/.build/release/HummingbirdBench"

# Fixed loopback ports (the bench config names the upstream's, UPSTREAM_PORT); override the
# others with env.
HUB_PORT_BENCH=${HUB_PORT_BENCH:-18080}
NGINX_PORT=${NGINX_PORT:-18082}
HB_PORT=${HB_PORT:-18083}

build_hummingbird() {
    log "building the Hummingbird app (release, its own package)"
    (cd "$HB_DIR" && swift build -c release --product HummingbirdBench 2>&1 | tail -n 3)
}

start_hummingbird() {
    require_ports "$HB_PORT"
    "$HB_BIN" "$HB_PORT" "$BENCH_DIR/config/content/bench-static.json" "$BENCH_DIR/upstream/items.json" \
        >"$WORK_TMP/hummingbird.log" 2>&1 &
    HB_PID=$!
    track "$HB_PID"
    wait_url "http://127.0.0.1:$HB_PORT/fixed"
}

# start_nginx HTML_DIR [NAME]: nginx from the Debian package with its own prefix and config
# (WORK_TMP/NAME, default nginx), one worker per core, serving HTML_DIR (view.json and its gzip
# view.json.gz) on NGINX_PORT, in the foreground (stopped by PID with the rest). Sets NGINX_PID
# (the master).
start_nginx() {
    local html=$1
    require_ports "$NGINX_PORT"
    NGINX_PREFIX=$WORK_TMP/${2:-nginx}
    mkdir -p "$NGINX_PREFIX/logs" "$NGINX_PREFIX/tmp"
    chmod 755 "$NGINX_PREFIX"
    cat >"$NGINX_PREFIX/nginx.conf" <<CONF
worker_processes $(nproc);
worker_rlimit_nofile 65536;
error_log logs/error.log warn;
pid logs/nginx.pid;
events { worker_connections 16384; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 300;
    keepalive_requests 10000;
    open_file_cache max=16 inactive=60s;
    types { application/json json; }
    default_type application/json;
    client_body_temp_path $NGINX_PREFIX/tmp; proxy_temp_path $NGINX_PREFIX/tmp; fastcgi_temp_path $NGINX_PREFIX/tmp;
    uwsgi_temp_path $NGINX_PREFIX/tmp; scgi_temp_path $NGINX_PREFIX/tmp;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $html;
        gzip_static on;
        gzip_vary on;
    }
}
CONF
    nginx -p "$NGINX_PREFIX" -c nginx.conf -g "daemon off;" &
    NGINX_PID=$!
    track "$NGINX_PID"
    wait_url "http://127.0.0.1:$NGINX_PORT/view.json" || { cat "$NGINX_PREFIX/logs/error.log" >&2; return 1; }
}

# nginx_workers: the PIDs of the worker processes of the nginx started by start_nginx, comma-separated.
nginx_workers() { pgrep -P "$NGINX_PID" | paste -sd, -; }

# ---------------------------------------------------------------------------- demo

# bench_demo_setup: demo_setup for the benchmarks that drive the demo Config/ (warning logs, no
# file watching, the per-client session limit out of the way: every client here is 127.0.0.1).
bench_demo_setup() {
    demo_setup '{ "host": "127.0.0.1", "log": { "level": "warning" }, "reload": { "watch": false },
                 "limits": { "sessionsPerClient": { "perSecond": 1000000, "burst": 1000000 } } }'
}

# open_sessions URL COUNT [THREADS]: COUNT GET requests of URL (e.g. .../view?uri=hub:todo) over
# THREADS keep-alive connections (default 1), each opening a session; prints the Hub-Session
# tokens, one a line. Fails on any answer but 200.
open_sessions() {
    python3 - "$1" "$2" "${3:-1}" <<'PY'
import http.client, sys, threading
from urllib.parse import urlsplit
url, total, threads = urlsplit(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
path = url.path + ("?" + url.query if url.query else "")
tokens, errors, lock = [], [], threading.Lock()
def worker(count):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        for _ in range(count):
            connection.request("GET", path)
            response = connection.getresponse(); response.read()
            if response.status != 200:
                raise RuntimeError(f"GET {path}: {response.status}")
            with lock:
                tokens.append(response.getheader("Hub-Session"))
    except Exception as error:  # reported below: the script fails
        errors.append(repr(error))
pool = [threading.Thread(target=worker, args=(total // threads + (1 if i < total % threads else 0),)) for i in range(threads)]
[t.start() for t in pool]; [t.join() for t in pool]
if errors:
    sys.exit(f"open_sessions: {errors[0]}")
print("\n".join(tokens))
PY
}

# hub_metric BASE_URL NAME: the value of the /metrics sample NAME (with its labels, exactly as
# exposed, e.g. 'hub_config_reloads_total{result="success"}'); empty when absent.
hub_metric() { curl -s "$1/metrics" | awk -v name="$2" '$1 == name { print $2 }'; }

# ---------------------------------------------------------------------------- clients

# held_session_of URL [CURL_ARG...]: opens a session from URL (a /view?uri= URL, with the curl
# arguments, such as a client's fields) and asks for it again, so that it is held; prints its
# token, or fails saying so.
held_session_of() {
    local token
    token=$(session_of "$@")
    [ -n "$token" ] || { echo "no session from $1" >&2; return 1; }
    curl -sf -o /dev/null "${@:2}" "${1%%/view?*}/view?session=$token" || { echo "session $token not held" >&2; return 1; }
    echo "$token"
}

# The fields an app's client sends on every request, as wrk arguments: the one list behind
# MATRIX_CLIENT=app, BENCH_CLIENT=app and the refcount cells.
APP_CLIENT_HEADERS=(
    -H 'User-Agent: HubApp/4.2.0 (iPhone15,3; iOS 18.1; Scale/3.00)' -H 'Accept: application/json'
    -H 'Accept-Language: en-GB,en;q=0.9,sv;q=0.5' -H 'Hub-Client: ios/4.2.0'
    -H 'Hub-Components: default:header,default:row,default:card,default:carousel,default:banner'
    -H 'traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
)

# ---------------------------------------------------------------------------- measuring

# median VALUE...: the middle value (the mean of the two middle ones for an even count).
median() {
    printf '%s\n' "$@" | grep -v '^$' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# cpu_ticks PID...: "USER SYSTEM", the clock ticks (getconf CLK_TCK a second) of CPU the
# processes have used: utime and stime of /proc/PID/stat, which count every thread, exited
# ones too. PIDs may also be given comma-separated.
cpu_ticks() {
    local user=0 system=0 pid fields
    for pid in ${*//,/ }; do
        read -r -a fields <<<"$(sed 's/.*) //' "/proc/$pid/stat")"
        user=$((user + fields[11]))
        system=$((system + fields[12]))
    done
    echo "$user $system"
}

# build_alloc_shim: compiles alloc_count.c (the allocation-counting LD_PRELOAD shim) into
# WORK_TMP; sets ALLOC_SHIM. Preload it with ALLOC_COUNT_FILE=$(alloc_counter NAME) in the
# environment of the process to count (its forked children add to the same counter).
build_alloc_shim() {
    command -v cc >/dev/null || ensure_tools gcc
    ALLOC_SHIM="$WORK_TMP/alloc_count.so"
    cc -O2 -Wall -shared -fPIC -o "$ALLOC_SHIM" "$BENCH_DIR/alloc_count.c"
}

# alloc_counter NAME: prints the path of a fresh counter file (8 zero bytes) in WORK_TMP.
alloc_counter() {
    head -c 8 /dev/zero >"$WORK_TMP/allocs-$1"
    echo "$WORK_TMP/allocs-$1"
}

# alloc_count FILE: the allocation calls counted so far in FILE.
alloc_count() { od -An -t u8 -N8 "$1" | tr -d ' '; }

# measure_run THREADS CONNS SECONDS URL PIDS COUNTER [WRK_ARG...]: one `wrk --latency` run
# against URL; PIDS (comma-separated) are the server processes whose CPU time is read from
# /proc right before and right after the run, COUNTER their allocation counter file (- for
# none). Prints "REQ/S P99_MS CPU_US USER_US ALLOCS": the rate, the p99 latency, then per
# request (the requests wrk completed) the server's user+system and user CPU microseconds and
# its allocation calls (- without a counter). REQ/S is 0 when an answer was not 2xx.
measure_run() {
    local threads=$1 conns=$2 seconds=$3 url=$4 pids=$5 counter=$6 out user0 system0 user1 system1 allocs0=0 allocs1=0
    shift 6
    [ "$counter" = - ] || allocs0=$(alloc_count "$counter")
    read -r user0 system0 <<<"$(cpu_ticks "$pids")"
    local -a pin=()
    [ -z "${WRK_CPUS:-}" ] || pin=(taskset -c "$WRK_CPUS")  # the client on cores of its own
    out=$(timeout $((seconds + 20)) "${pin[@]}" wrk -t"$threads" -c"$conns" -d"${seconds}s" --latency "$@" "$url")
    read -r user1 system1 <<<"$(cpu_ticks "$pids")"
    [ "$counter" = - ] || allocs1=$(alloc_count "$counter")
    awk -v hz="$(getconf CLK_TCK)" -v cpu=$((user1 + system1 - user0 - system0)) -v user=$((user1 - user0)) \
        -v allocs=$((allocs1 - allocs0)) -v counted="$([ "$counter" = - ] && echo 0 || echo 1)" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /requests in/ { requests = $1 }
        /Requests\/sec/ { rate = $2 }
        $1 == "99%" { p99 = ms($2) }
        /Non-2xx/ { bad = $NF }
        END {
            if (bad > 0) rate = 0
            n = (requests > 0) ? requests : 1
            printf "%d %.2f %.2f %.2f %s\n", rate, p99, cpu * 1e6 / hz / n, user * 1e6 / hz / n,
                counted ? sprintf("%.1f", allocs / n) : "-"
        }' <<<"$out"
}
