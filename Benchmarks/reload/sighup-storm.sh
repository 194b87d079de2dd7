#!/usr/bin/env bash
# Reloads cannot stall the server: with STORM_SESSIONS (default 20000) stored hub:catalog
# sessions (a templated file: feature, which used to count as changed on every reload), wrk
# measures GET /view?uri=hub:catalog for STORM_SECONDS (default 10) without SIGHUPs, then again
# while the server gets a SIGHUP every 0.5 s with no file changed, in alternating rounds
# (STORM_ROUNDS, default 2; medians). PASS when the storm keeps at least STORM_MIN_RATIO (default
# 0.8) of the quiet throughput and hub_reload_reruns_total stays 0.
#
#   Benchmarks/reload/sighup-storm.sh        (release build; not part of `make bench`)
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
sessions=${STORM_SESSIONS:-20000}
seconds=${STORM_SECONDS:-10}
rounds=${STORM_ROUNDS:-2}
min_ratio=${STORM_MIN_RATIO:-0.8}
bench_demo_setup
start_hub "$config" "$HUB_PORT_BENCH" "$WORK_TMP/hub.log"
base="http://127.0.0.1:$HUB_PORT_BENCH"
metric() { hub_metric "$base" "$1"; }

log "storing $sessions hub:catalog sessions"
open_sessions "$base/view?uri=hub:catalog" "$sessions" 8 >/dev/null
log "sessions active: $(metric hub_sessions_active)"

measure() {  # measure quiet|storm -> req/s
    local storm_pid=""
    if [ "$1" = storm ]; then
        ( while kill -0 "$HUB_PID" 2>/dev/null; do kill -HUP "$HUB_PID"; sleep 0.5; done ) &
        storm_pid=$!
    fi
    wrk -t2 -c32 -d"${seconds}s" "$base/view?uri=hub:catalog" 2>/dev/null | awk '/Requests\/sec/{print $2}'
    if [ -n "$storm_pid" ]; then kill "$storm_pid" 2>/dev/null || true; wait "$storm_pid" 2>/dev/null || true; fi
}
quiet=(); storm=()
for ((round = 1; round <= rounds; round++)); do
    quiet+=("$(measure quiet)")
    storm+=("$(measure storm)")
    log "round $round: quiet ${quiet[-1]} req/s, SIGHUP every 0.5 s ${storm[-1]} req/s"
done
reloads=$(metric 'hub_config_reloads_total{result="success"}')
eager=$(metric 'hub_reload_reruns_total{mode="eager"}')
lazy=$(metric 'hub_reload_reruns_total{mode="lazy"}')
python3 - "$min_ratio" "${reloads:-0}" "${eager:-0}" "${lazy:-0}" "${quiet[*]}" "${storm[*]}" <<'PY'
import statistics, sys
min_ratio, reloads, eager, lazy = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
quiet = statistics.median(map(float, sys.argv[5].split())); storm = statistics.median(map(float, sys.argv[6].split()))
ratio = storm / quiet
print(f"GET /view?uri=hub:catalog: {quiet:.0f} req/s quiet, {storm:.0f} req/s with a SIGHUP every 0.5 s: {ratio:.2f}x")
print(f"reloads: {reloads:.0f}; re-runs: eager {eager:.0f}, lazy {lazy:.0f}")
ok = ratio >= min_ratio and eager == 0 and lazy == 0 and reloads > 0
print("PASS: sighup-storm" if ok else "FAIL: sighup-storm")
sys.exit(0 if ok else 1)
PY
