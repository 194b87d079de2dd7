#!/usr/bin/env bash
# Profiles hub-server on GET /view?uri=hub:bench (the bench config, memoized chain).
#
#   Benchmarks/bench/profile.sh perf        perf record -g (cpu-clock samples, 999 Hz) of the running
#                                           server during 8 s of wrk -t1 -c32: where the time goes,
#                                           kernel included (needs linux-perf; root)
#   Benchmarks/bench/profile.sh perf-cap    the same once the session store is at sessions.max
#                                           (every request also evicts a session)
#   Benchmarks/bench/profile.sh perf-session  the same on GET /view?session= (one held session)
#   Benchmarks/bench/profile.sh callgrind   the server under valgrind --tool=callgrind during 20 s
#                                           of wrk -t1 -c8 (slow: counts instructions), then
#                                           SIGTERM; exclusive and inclusive top functions.
#                                           valgrind 3.19 (Debian 12) crashes with an internal
#                                           SIGSEGV as hub-server starts: use perf there
# Output: the top entries, demangled, on stdout; raw data in Benchmarks/bench/results/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
mode=${1:-perf}
cleanup_on_exit
ensure_tools
[ -x "$HUB_BIN" ] || build_hub_server release
work_tmp bench
mkdir -p "$BENCH_DIR/results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
start_upstream 600
url="http://127.0.0.1:$HUB_PORT_BENCH/view?uri=hub:bench"
demangle() { swift demangle --simplified 2>/dev/null || cat; }

case "$mode" in
perf | perf-cap | perf-session)
    command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 2; }
    start_hub "$BENCH_DIR/config" "$HUB_PORT_BENCH" "$WORK_TMP/hub.log"
    if [ "$mode" = perf-session ]; then
        token=$(curl -sf -D - -o /dev/null "$url" | tr -d '\r' | awk 'tolower($1) == "hub-session:" { print $2 }')
        url="http://127.0.0.1:$HUB_PORT_BENCH/view?session=$token"
    fi
    for _ in 1 2 3; do curl -sf -o /dev/null "$url"; done
    if [ "$mode" = perf-cap ]; then
        # Fill the session store to sessions.max (200 000): every later request evicts one.
        timeout 40 wrk -t2 -c32 -d12s "$url" >/dev/null
        echo "sessions before profiling: $(curl -sf "http://127.0.0.1:$HUB_PORT_BENCH/health")"
    else
        timeout 20 wrk -t1 -c32 -d2s "$url" >/dev/null
    fi
    data="$BENCH_DIR/results/$mode-$stamp.data"
    perf record -F 999 -e cpu-clock -g -p "$HUB_PID" -o "$data" -- sleep 8 >/dev/null 2>&1 &
    recorder=$!
    sleep 0.3
    timeout 30 wrk -t1 -c32 -d8s --latency "$url" | grep -E "Requests/sec|99%"
    wait "$recorder" || true
    set +o pipefail  # head closes the pipes early
    echo "== perf: share of hub-server's samples by shared object (self)"
    perf report -i "$data" --stdio --no-children --sort dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 10
    echo "== perf: top 25 symbols (self)"
    perf report -i "$data" --stdio --no-children --sort dso,symbol -g none 2>/dev/null | grep -v '^#' | grep -v '^$' \
        | head -n 25 | demangle | cut -c1-160
    echo "== perf: inclusive (children) shares of the request path's frames"
    perf report -i "$data" --stdio --children --sort symbol -g none --percent-limit 0.5 2>/dev/null | grep -v '^#' \
        | grep -v '^$' | demangle | grep -E 'MiddlewareChain|sendmsg|_dispatch_mgr_thread|_dispatch_mgr_queue_push|epoll_wait|finish_task_switch|openSession|SessionStore|swift_task_create|swift_task_enqueueGlobal|ViewSession.deinit|removeExpired|processBuffer|getView|ViewResponder|RepresentationMiddleware|ObservabilityMiddleware' \
        | head -n 30 | cut -c1-160
    echo "== perf: user time by part of the request path (Benchmarks/bench/buckets.py)"
    python3 "$(dirname "$0")/buckets.py" "$data"
    ;;
callgrind)
    command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 2; }
    out="$BENCH_DIR/results/callgrind-$stamp.out"
    require_ports "$HUB_PORT_BENCH"
    HUB_LOG_LEVEL=warning HUB_PORT=$HUB_PORT_BENCH valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$HUB_BIN" serve --config "$BENCH_DIR/config" >"$WORK_TMP/hub.log" 2>&1 &
    HUB_PID=$!
    track "$HUB_PID"
    for _ in $(seq 600); do
        curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$HUB_PORT_BENCH/health" && break
        kill -0 "$HUB_PID" 2>/dev/null || { echo "hub-server died under valgrind:" >&2; grep -v '^==.*  \(at\|by\) ' "$WORK_TMP/hub.log" | head -n 12 >&2; exit 1; }
        sleep 0.2
    done
    for _ in 1 2 3; do curl -sf -o /dev/null "$url"; done
    # Only the measured part: zero the counters first.
    callgrind_control -z "$HUB_PID" >/dev/null 2>&1 || true
    timeout 60 wrk -t1 -c8 -d20s "$url" | grep -E "requests in|Requests/sec"
    kill -TERM "$HUB_PID"
    for _ in $(seq 600); do kill -0 "$HUB_PID" 2>/dev/null || break; sleep 0.1; done
    wait "$HUB_PID" || true
    forget_pid "$HUB_PID"
    set +o pipefail  # head closes the pipes early
    echo "== callgrind: top 25 functions by exclusive instructions"
    callgrind_annotate --inclusive=no "$out" 2>/dev/null | sed -n '/^Ir/,$p' | head -n 28 | demangle | cut -c1-220
    echo "== callgrind: top 30 functions by inclusive instructions"
    callgrind_annotate --inclusive=yes "$out" 2>/dev/null | sed -n '/^Ir/,$p' | head -n 33 | demangle | cut -c1-220
    ;;
*)
    echo "usage: $0 perf|perf-cap|callgrind" >&2
    exit 64
    ;;
esac
