#!/usr/bin/env bash
# Many users behind one deployment, with the shipped files as shipped: one hub-server replica
# on the demo Config/ with deploy/server.json unchanged (its trustedProxies included), behind
# deploy/nginx/hubserver.conf (rewritten only for loopback ports, balancer_config.py; all three
# upstream entries name the one replica, so every stream lands on it). 40 users, each from its
# own loopback address, open a view and hold an event stream: all 40 are 200 (without the
# shipped trustedProxies every user is nginx's address, and the 33rd stream is 429). Then the
# same replica with trustedProxies emptied shows the misconfiguration: hub_forwarded_for_ignored_total
# grows. Part of make test-deploy (check.sh); about 15 s.
#
#   Tests/system/deploy/many_clients.sh     (HUB_BIN=path/to/hub-server; default .build/debug/hub-server)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
HUB_BIN=${HUB_BIN:-$REPO_DIR/.build/debug/hub-server}
[ -x "$HUB_BIN" ] || { fail "many-clients: $HUB_BIN is missing (swift build --product hub-server)"; checks_done; }
command -v nginx >/dev/null || { fail "many-clients: nginx is not installed (make deps-deploy)"; checks_done; }

cleanup_on_exit
work_tmp many-clients
REPLICA_CONFIG="$WORK_TMP/config"
cp -r "$REPO_DIR/Config" "$REPLICA_CONFIG"
cp "$REPO_DIR/deploy/server.json" "$REPLICA_CONFIG/server.json"   # as compose and the ConfigMap do
"$HUB_BIN" validate "$REPLICA_CONFIG" >/dev/null

start_replica 0
REPLICA_PORTS[1]=${REPLICA_PORTS[0]}
REPLICA_PORTS[2]=${REPLICA_PORTS[0]}
start_nginx_balancer
timeout 90 python3 "$SYSTEM_DIR/deploy/many_clients.py" --balancer "$BALANCER_PORT" --replica "${REPLICA_PORTS[0]}" \
    --clients 40 || CHECK_STATUS=1
stop_pid "$NGINX_PID"
stop_replica 0 TERM 10

# The way it goes wrong: a replica whose trustedProxies misses the balancer says so.
python3 - "$REPLICA_CONFIG/server.json" <<'PY'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
settings["trustedProxies"] = []
json.dump(settings, open(path, "w"))
PY
: >"$WORK_TMP/replica-0.log"
HUB_LOG_LEVEL_REPLICAS=warning start_replica 0
start_nginx_balancer
for _ in 1 2 3; do curl -s -o /dev/null "http://127.0.0.1:$BALANCER_PORT/view?uri=hub:home"; done
ignored=$(curl -s "http://127.0.0.1:${REPLICA_PORTS[0]}/metrics" | awk '$1=="hub_forwarded_for_ignored_total"{print $2}')
warnings=$(grep -c 'X-Forwarded-For ignored' "$WORK_TMP/replica-0.log" || true)
if [ "${ignored:-0}" -ge 3 ] && [ "$warnings" = 1 ]; then
    pass "many-clients: without trustedProxies the replica counts ignored X-Forwarded-For ($ignored) and warns once"
else
    fail "many-clients: without trustedProxies: hub_forwarded_for_ignored_total=${ignored:-none}, $warnings warnings"
fi
checks_done
