#!/usr/bin/env bash
# Flood: one client holds a todo session, adds an item and reads its view every second, while
# wrk floods one-shot GET /view?uri=hub:todo (each a new stored session, never used again) at
# full speed for FLOOD_SECONDS (default 30) against the demo config with sessions.max 500.
# PASS when every action of the first client was performed, all its items are still in its
# view, its session was never rebuilt (hub_sessions_rebuilt_total stays 0: it was never
# evicted) and the server's RSS stays under FLOOD_MAX_RSS_MIB (default 400). The flood comes
# from one address, so limits.sessionsPerClient is raised out of its way: this measures the
# store's eviction, not the per-client limit (forged-tokens.sh measures that).
#
#   Tests/system/robustness/flood.sh [SECONDS]        (not part of `make bench`)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
seconds=${1:-${FLOOD_SECONDS:-30}}
max_rss_mib=${FLOOD_MAX_RSS_MIB:-400}
demo_setup '{ "host": "127.0.0.1", "sessions": { "max": 500 }, "log": { "level": "warning" },
             "limits": { "sessionsPerClient": { "perSecond": 1000000, "burst": 1000000 } } }'
start_hub "$config" "$CHECK_PORT" "$WORK_TMP/hub.log"
base="http://127.0.0.1:$CHECK_PORT"
metric() { curl -s "$base/metrics" | awk -v name="$1" '$1 == name { print $2 }'; }

session=$(session_of "$base/view?uri=hub:todo")
[ -n "$session" ] || { echo "FAIL: no session"; exit 1; }
log "client session $session; flooding for ${seconds}s"
rss_before=$(rss_kib "$HUB_PID")

timeout $((seconds + 30)) wrk -t2 -c32 -d"${seconds}s" "$base/view?uri=hub:todo" >"$WORK_TMP/wrk.txt" 2>&1 &
wrk_pid=$!
track "$wrk_pid"

failures=0
added=0
rss_peak=$rss_before
for ((i = 1; i <= seconds; i++)); do
    answer=$(curl -s --max-time 10 -X POST "$base/action" -H 'Content-Type: application/json' \
        -d "{\"session\":\"$session\",\"action\":\"todo:add\",\"custom\":{\"title\":\"flood-item-$i\"}}")
    if [ "$(printf '%s' "$answer" | jq -r '.performed' 2>/dev/null)" = true ]; then
        added=$((added + 1))
    else
        failures=$((failures + 1))
        echo "action $i failed: ${answer:0:200}"
    fi
    view=$(curl -s --max-time 10 "$base/view?session=$session")
    for ((k = 1; k <= added; k++)); do
        printf '%s' "$view" | grep -q "\"flood-item-$k\"" || { failures=$((failures + 1)); echo "item $k missing after second $i"; }
    done
    rss=$(rss_kib "$HUB_PID"); [ "$rss" -gt "$rss_peak" ] && rss_peak=$rss
    sleep 1
done
wait "$wrk_pid" || true

requests=$(awk '/requests in/{print $1}' "$WORK_TMP/wrk.txt")
rate=$(awk '/Requests\/sec/{print $2}' "$WORK_TMP/wrk.txt")
evicted=$(metric 'hub_sessions_ended_total{reason="evicted"}')
rebuilt=0
for reason in evicted expired unknown; do
    value=$(metric "hub_sessions_rebuilt_total{reason=\"$reason\"}")
    rebuilt=$(python3 -c "print(int($rebuilt + float('${value:-0}')))")
done
echo "flood: $requests one-shot views in ${seconds}s ($rate req/s), sessions evicted: $evicted"
echo "client: $added of $seconds actions performed, items checked every second, rebuilds: $rebuilt"
echo "rss: $((rss_before / 1024)) MiB before, peak $((rss_peak / 1024)) MiB (limit $max_rss_mib MiB)"
if [ "$failures" -eq 0 ] && [ "$added" -eq "$seconds" ] && [ "$rebuilt" -eq 0 ] && [ $((rss_peak / 1024)) -lt "$max_rss_mib" ]; then
    echo "PASS: flood"
else
    echo "FAIL: flood ($failures failures)"
    exit 1
fi
