#!/usr/bin/env bash
# Forged tokens: the review's attack on unsigned tokens, against signed ones. wrk sends
# GET /view?session=<a new random id>.l<base64url of hub:todo>.<time>.<random MAC> (a token of
# the signed shape whose MAC cannot verify), a new one per request, for FORGE_SECONDS (default
# 20) against the demo config; then the same with the review's unsigned shape
# (<random id>.saHViOnRvZG8). PASS when every forged request was 404, hub_sessions_active and
# hub_sessions_created_total did not move, and RSS grew by less than FORGE_MAX_RSS_GROWTH_MIB
# (default 32).
#
#   Tests/system/robustness/forged-tokens.sh [SECONDS]        (not part of `make bench`)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
seconds=${1:-${FORGE_SECONDS:-20}}
max_growth_mib=${FORGE_MAX_RSS_GROWTH_MIB:-32}
demo_setup '{ "host": "127.0.0.1", "log": { "level": "warning" } }'
start_hub "$config" "$CHECK_PORT" "$WORK_TMP/hub.log"
base="http://127.0.0.1:$CHECK_PORT"
metric() { curl -s "$base/metrics" | awk -v name="$1" '$1 == name { print $2 }'; }

# A real user's todo session, with an item, followed over SSE for the whole run.
session=$(session_of "$base/view?uri=hub:todo")
curl -s -X POST "$base/action" -H "Hub-Session: $session" -H 'Content-Type: application/json' \
    -d '{"action":"todo:add","custom":{"title":"mine"}}' >/dev/null
timeout $((2 * seconds + 20)) curl -sN "$base/view/events?session=$session" >"$WORK_TMP/sse.txt" 2>/dev/null &
track $!
sleep 0.5

cat >"$WORK_TMP/forge.lua" <<'LUA'
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
local function random_b64(n)
  local t = {}
  for i = 1, n do local k = math.random(64); t[i] = alphabet:sub(k, k) end
  return table.concat(t)
end
local shape = os.getenv("FORGE_SHAPE") or "signed"
local statuses = {}
request = function()
  local token
  if shape == "signed" then
    token = random_b64(22) .. ".laHViOnRvZG8." .. tostring(os.time()) .. "." .. random_b64(43)
  else
    token = random_b64(22) .. ".saHViOnRvZG8"
  end
  return wrk.format("GET", "/view?session=" .. token)
end
response = function(status) statuses[status] = (statuses[status] or 0) + 1 end
done = function() end
LUA

created_before=$(metric hub_sessions_created_total)
active_before=$(metric hub_sessions_active)
rss_before=$(rss_kib "$HUB_PID")
for shape in signed unsigned; do
    log "forging $shape tokens for ${seconds}s"
    FORGE_SHAPE=$shape timeout $((seconds + 30)) wrk -t1 -c32 -d"${seconds}s" -s "$WORK_TMP/forge.lua" \
        "$base" >"$WORK_TMP/wrk-$shape.txt" 2>&1
    awk '/requests in|Requests\/sec|Non-2xx/' "$WORK_TMP/wrk-$shape.txt"
done
rss_after=$(rss_kib "$HUB_PID")
created_after=$(metric hub_sessions_created_total)
active_after=$(metric hub_sessions_active)
rejected=$(metric 'hub_session_tokens_rejected_total{reason="signature"}')
malformed=$(metric 'hub_session_tokens_rejected_total{reason="malformed"}')
requests=0; non2xx=0
for shape in signed unsigned; do
    requests=$((requests + $(awk '/requests in/{print $1}' "$WORK_TMP/wrk-$shape.txt")))
    non2xx=$((non2xx + $(awk '/Non-2xx/{print $NF}' "$WORK_TMP/wrk-$shape.txt")))
done
view=$(curl -s "$base/view?session=$session")
echo "forged: $requests requests, $non2xx non-2xx; rejected: signature $rejected, malformed $malformed"
echo "sessions: active $active_before -> $active_after, created $created_before -> $created_after"
echo "rss: $((rss_before / 1024)) MiB -> $((rss_after / 1024)) MiB (growth limit $max_growth_mib MiB)"
ok=1
[ "$requests" -gt 0 ] && [ "$non2xx" -eq "$requests" ] || { echo "a forged request was answered 2xx"; ok=0; }
[ "$created_after" = "$created_before" ] && [ "$active_after" = "$active_before" ] || { echo "sessions moved"; ok=0; }
[ $(((rss_after - rss_before) / 1024)) -lt "$max_growth_mib" ] || { echo "RSS grew"; ok=0; }
printf '%s' "$view" | grep -q '"mine"' || { echo "the user's item is gone"; ok=0; }
grep -q '^event: view' "$WORK_TMP/sse.txt" || { echo "the user's stream got nothing"; ok=0; }
if [ "$ok" -eq 1 ]; then echo "PASS: forged-tokens"; else echo "FAIL: forged-tokens"; exit 1; fi
