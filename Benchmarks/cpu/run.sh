#!/usr/bin/env bash
# `make bench-cpu`: HubServer's CPU per request against nginx (2 workers, open_file_cache), a
# second nginx (the A/A floor) and h2o (2 threads) serving the same bytes, on the realistic config
# (Benchmarks/configs/realistic: 59 features, toggles, a custom schema, cached remote operations
# against the benchmark upstream). Release build; loopback only; every process started here is
# stopped by PID on exit. See bench_cpu.py for the cells and knobs (BENCH_QUICK=1: a smoke run of
# about two minutes; the full run: 96 cells, about 66 minutes) and docs/PERFORMANCE.md for results.
#
#   Benchmarks/cpu/run.sh                       (make bench-cpu)
#   BENCH_QUICK=1 Benchmarks/cpu/run.sh         fewer cells, 2 rounds of 1 s
#   BENCH_BIN=path/to/hub-server               another binary (default: .build/release's; `make
#                                              bench-cpu` passes the profile-guided build's)
#   BENCH_SIZES="16 40" BENCH_CLIENTS=app BENCH_CONNS=32 BENCH_THREADS="1 2" Benchmarks/cpu/run.sh
#   BENCH_CONFIG=DIR BENCH_SIZES="4 12 22" ...  view sizes the code was not tuned on (DIR from
#                                              Benchmarks/configs/realistic/generate.py --out DIR;
#                                              with --rearranged, a config arranged otherwise)
#
# Check `cat /proc/loadavg` first: numbers taken while the load average is above about 1 (other
# builds on the same cores) only try the script.
set -euo pipefail
source "$(dirname "$0")/../bench/lib.sh"
# BENCH_CONFIG: another config with hub:bench:<KB>k views, e.g. the realistic one with other
# measured sizes (Benchmarks/configs/realistic/generate.py --out DIR --sizes ... --remote-sizes ...).
CONFIG=${BENCH_CONFIG:-$REPO_DIR/Benchmarks/configs/realistic}
UPSTREAM_PORT=18181  # the realistic config's remote operations name it
HUB_BIN=${BENCH_BIN:-$HUB_BIN}  # BENCH_BIN: another hub-server binary than .build/release's

cleanup_on_exit
ensure_tools wrk nginx h2o curl
raise_nofile
use_hub_server release
work_tmp bench-cpu
log "load average $(load_average) on $(nproc) cores; git $(cd "$REPO_DIR" && git rev-parse --short HEAD); $HUB_BIN"
"$HUB_BIN" validate "$CONFIG" >/dev/null
start_upstream 7200 --files "$CONFIG/upstream"
# The config's own settings (info logs, access log `errors`), on a free port.
HUB_LOG_LEVEL_CHECK=info start_hub "$CONFIG" "" "$WORK_TMP/hub.log"
# Warm the remote features once (cached upstream responses, as in a running deployment).
for uri in hub:catalog hub:news hub:home; do curl -sf -o /dev/null "$HUB_URL/view?uri=$uri" || log "warning: $uri failed"; done
python3 "$(dirname "$0")/bench_cpu.py" --hub "$HUB_URL" --hub-pid "$HUB_PID" --work "$WORK_TMP"
log "hub-server RSS at the end: $(rss_kib "$HUB_PID") KiB"
