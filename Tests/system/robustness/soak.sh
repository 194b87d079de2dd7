#!/usr/bin/env bash
# Soak: SOAK_SECONDS (default 600) at half the measured peak of GET /view?uri=hub:bench, a mix
# of new-session views, gzip views and session lookups (wrk with a Lua script and a per-request
# delay for the rate); the server's RSS and sessions sampled every 10 s.
# PASS when wrk sees 0 socket errors and 0 non-2xx answers and the server is still healthy;
# RSS growth from the end of the first minute (sessions reach sessions.max = 200 000 and LRU
# eviction starts within it) to the end is reported.
#
#   Tests/system/robustness/soak.sh [SECONDS]        (not part of `make bench`)
#   SOAK_PEAK=20000 Tests/system/robustness/soak.sh   (skip measuring the peak)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
soak_seconds=${1:-${SOAK_SECONDS:-600}}
robustness_setup $((soak_seconds + 300))
start_bench_hub "$BENCH_DIR/config"
url="$base/view?uri=hub:bench"
session=$(session_of "$url")
echo "load before: $(load_average)"

if [ -n "${SOAK_PEAK:-}" ]; then
    peak=$SOAK_PEAK
    echo "peak (given): $peak req/s"
else
    timeout 30 wrk -t2 -c32 -d5s "$url" >"$WORK_TMP/peak.txt" 2>&1
    peak=$(awk '/Requests\/sec/{printf "%d", $2}' "$WORK_TMP/peak.txt")
    echo "peak (wrk -t2 -c32 5 s, GET /view?uri=hub:bench): $peak req/s"
fi
target=$((peak / 2))

cat >"$WORK_TMP/mix.lua" <<'LUA'
-- A third new-session views, a third of them with gzip, a third session lookups; each
-- connection waits 2 ms before each request so the rate follows the connection count.
local session = os.getenv("HUB_SESSION")
local n = 0
function request()
    n = n + 1
    local k = n % 3
    if k == 0 then
        return wrk.format("GET", "/view?uri=hub:bench")
    elseif k == 1 then
        return wrk.format("GET", "/view?uri=hub:bench", { ["Accept-Encoding"] = "gzip" })
    else
        return wrk.format("GET", "/view?session=" .. session)
    end
end
function delay()
    return 2
end
LUA

# Calibrate the connection count for the target rate (4 s at 16 connections).
HUB_SESSION=$session timeout 30 wrk -t2 -c16 -d4s -s "$WORK_TMP/mix.lua" "$base" >"$WORK_TMP/calibrate.txt" 2>&1
calibrated=$(awk '/Requests\/sec/{printf "%d", $2}' "$WORK_TMP/calibrate.txt")
connections=$(python3 -c 'import sys; t, r = int(sys.argv[1]), max(1, int(sys.argv[2])); print(max(2, min(1024, round(16 * t / r))))' "$target" "$calibrated")
echo "target $target req/s: 16 connections gave $calibrated req/s -> $connections connections"

rss_start=$(rss_kib "$HUB_PID")
HUB_SESSION=$session timeout $((soak_seconds + 60)) wrk -t2 -c"$connections" -d"${soak_seconds}s" --latency \
    -s "$WORK_TMP/mix.lua" "$base" >"$WORK_TMP/soak.txt" 2>&1 &
soak=$!
track "$soak"
samples="$WORK_TMP/samples.csv"
echo "seconds,rss_kib,sessions" >"$samples"
started=$(date +%s)
for _ in $(seq $((soak_seconds / 10 + 3))); do
    kill -0 "$soak" 2>/dev/null || break
    sessions=$(curl -sf --max-time 5 "$base/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"])' || echo -1)
    echo "$(($(date +%s) - started)),$(rss_kib "$HUB_PID"),$sessions" >>"$samples"
    sleep 10
done
wait "$soak" || true
forget_pid "$soak"
health=$(curl -sf --max-time 5 "$base/health" || echo "no answer")
echo "$(($(date +%s) - started)),$(rss_kib "$HUB_PID"),end" >>"$samples"
echo "load after: $(load_average)"
cp "$samples" "$BENCH_DIR/results/soak-samples-$(date -u +%Y%m%dT%H%M%SZ).csv" 2>/dev/null || true

python3 - "$WORK_TMP/soak.txt" "$samples" "$rss_start" "$peak" "$health" "$soak_seconds" <<'PY'
import csv, json, re, subprocess, sys
text = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2])))
rss_start, peak, health, seconds = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
requests = int(re.search(r"(\d+) requests in", text).group(1))
m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
socket_errors = sum(map(int, m.groups())) if m else 0
m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
non2xx = int(m.group(1)) if m else 0
lat = {p: re.search(r"^\s+%s%%\s+(\S+)" % p, text, re.M).group(1) for p in ("50", "99")}
rss = [(int(r["seconds"]), int(r["rss_kib"])) for r in rows]
after_minute = next((v for t, v in rss if t >= min(60, seconds // 4)), rss[0][1])
end = rss[-1][1]
peak_rss = max(v for _, v in rss)
growth = end - after_minute
sessions = [r["sessions"] for r in rows if r["sessions"] not in ("end", "-1")]
print(f"soak: {seconds} s, {requests} requests at {rps:,.0f} req/s ({100 * rps / peak:.0f}% of the {peak} req/s peak), "
      f"p50 {lat['50']}, p99 {lat['99']}; socket errors {socket_errors}, non-2xx {non2xx}")
print(f"RSS: {rss_start // 1024} MiB at start, {after_minute // 1024} MiB after the first minute, {end // 1024} MiB at the end "
      f"(max {peak_rss // 1024} MiB): growth after the first minute {growth / 1024:+.1f} MiB "
      f"({100 * growth / after_minute:+.1f}%); sessions alive at the samples: {', '.join(sessions[:3])} ... {sessions[-1] if sessions else ''}")
print(f"health after: {health}")
ok = socket_errors == 0 and non2xx == 0 and health != "no answer"
print(("PASS" if ok else "FAIL") + f" soak: {seconds} s at {rps:,.0f} req/s, {socket_errors + non2xx} errors, "
      f"RSS growth after the first minute {growth / 1024:+.1f} MiB ({100 * growth / after_minute:+.1f}%)")
sys.exit(0 if ok else 1)
PY
