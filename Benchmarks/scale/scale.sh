#!/usr/bin/env bash
# Scale with connections and listeners (docs/PERFORMANCE.md "Scale: connections and listeners";
# `make bench-scale`): a release hub-server on a temporary copy of Config/ with its limits raised
# (below), driven from 127.0.0.1 by scale.py: memory per idle keep-alive connection, per SSE
# listener, GET /view throughput beside them (against a second, bare hub-server in alternating
# rounds), config-edit and action fan-out to every listener, action to pushed view. Not part of
# `make test`; about three minutes.
#
#   Benchmarks/scale/scale.sh                          # 10,000 listeners and up to 10,000 idle connections
#   SCALE_LISTENERS=2000 SCALE_IDLE=2000 Benchmarks/scale/scale.sh   # smaller
#   HUB_BIN=/path/to/hub-server Benchmarks/scale/scale.sh            # another build
#
# The hub holds one descriptor per connection: listeners + idle + wrk's 32 + its own must stay
# under its RLIMIT_NOFILE, which this script raises to the hard limit. Where the hard limit is
# lower than 20,000 plus a margin (a container's 20,000 here), the idle connections are cut to
# what fits, and the summary says how many were held.
set -euo pipefail
requested_bin=${HUB_BIN:-}
source "$(cd "$(dirname "$0")" && pwd)/../bench/lib.sh"
HUB_BIN=${requested_bin:-$HUB_BIN}

cleanup_on_exit
ensure_tools wrk curl
ulimit -n "$(ulimit -Hn)"
use_hub_server release
work_tmp scale

listeners=${SCALE_LISTENERS:-10000}
idle=${SCALE_IDLE:-10000}
fits=$(( $(ulimit -n) - listeners - 32 - 300 ))
if [ "$idle" -gt "$fits" ]; then
    log "RLIMIT_NOFILE is $(ulimit -n): $idle idle connections do not fit beside $listeners listeners; holding $fits"
    idle=$fits
fi
connections=$(( listeners + idle + 500 ))

config="$WORK_TMP/config"
cp -r "$REPO_DIR/Config" "$config"
# What the run needs raised, and why (docs/PERFORMANCE.md says the same):
#   limits.connections, sseStreams: every idle connection and listener is held at once;
#   sseStreamsPerClient, sessionsPerClient, actionsPerClient: every client here is the one
#     address 127.0.0.1;
#   sseListenersPerSession: the action fan-out puts every listener on one session;
#   timeouts.idleSeconds: no idle connection is closed during the run (streamSeconds stays 600:
#     every listener carries its lifetime timer, as in production; the run is shorter);
#   state.backend memory: the action figures measure the server, not this disk's fsync.
#   locales: the demo's, as Config/server.json has them (its views' texts come from the string
#     catalogs, and the listeners wait for one of those texts).
#   connectionBalancing: SCALE_BALANCING (default idle-first, the server's default; round-robin
#     spreads the listeners evenly over the event loops).
cat >"$config/server.json" <<JSON
{ "host": "127.0.0.1", "port": 8080, "connectionBalancing": "${SCALE_BALANCING:-idle-first}",
  "limits": { "connections": $connections, "sseStreams": $(( listeners + 100 )),
              "sseStreamsPerClient": $(( listeners + 100 )), "sseListenersPerSession": ${SCALE_PER_SESSION:-$listeners},
              "sessionsPerClient": { "perSecond": 1000000, "burst": 1000000 },
              "actionsPerClient": { "perSecond": 1000000, "burst": 1000000 } },
  "timeouts": { "idleSeconds": 3600 },
  "state": { "backend": "memory" },
  "locales": { "supported": ["en", "de"], "default": "en" },
  "log": { "level": "warning", "format": "json" } }
JSON
"$HUB_BIN" validate "$config" >/dev/null
# The bare server: the same binary and config, never holding anything; wrk alternates between
# the two (compare.sh's method), so the machine's noise falls on both.
cp -r "$config" "$WORK_TMP/config-bare"
export HUB_DATA_DIR="$WORK_TMP/data-bare"
start_hub "$WORK_TMP/config-bare" "" "$WORK_TMP/hub-bare.log"
bare_port=$HUB_PORT_USED
export HUB_DATA_DIR="$WORK_TMP/data"
start_hub "$config"
log "hub-server $HUB_PID on $HUB_URL, bare one on port $bare_port ($HUB_BIN); load average $(load_average)"
echo "git $(git -C "$REPO_DIR" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $(uptime)"
python3 "$REPO_DIR/Benchmarks/scale/scale.py" --port "$HUB_PORT_USED" --pid "$HUB_PID" --bare-port "$bare_port" --config "$config" \
    --listeners "$listeners" --idle "$idle" --actions "${SCALE_ACTIONS:-200}" --per-session "${SCALE_PER_SESSION:-0}"
echo "load average at the end: $(load_average)"
