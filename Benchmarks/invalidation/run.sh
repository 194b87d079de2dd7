#!/usr/bin/env bash
# Invalidation across replicas: from a signed POST /invalidate accepted by replica A to the new
# view on the SSE listeners of replica B (docs/INVALIDATION.md).
#
# Two hub-servers (A, B) share one throwaway PostgreSQL cluster (initdb + pg_ctl in a temporary
# folder on a loopback port, as the postgres user when run as root; never the system service).
# A Python upstream (in invalidation_latency.py) serves /news/1 tagged `Surrogate-Key: article-1`,
# fresh for 300 s, its title carrying a version. INVALIDATION_LISTENERS (default 10) sessions
# of hub:news:1 are opened on B, each followed over SSE; then INVALIDATION_COUNT (default 100)
# times, one after another: the upstream publishes the next version, A gets a signed
# {"tags":["article-1"]}, and the time from A's 202 to the new version on each of B's listeners
# is taken. Prints p50, p99 and max over every listener of every invalidation (goal: p99 < 1 s).
#
#   Benchmarks/invalidation/run.sh      (`make bench-invalidation`; release build unless
#                                        HUB_BIN names a binary, e.g. .build/debug/hub-server)
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/../../Tests/system/lib.sh"
count=${INVALIDATION_COUNT:-100}
listeners=${INVALIDATION_LISTENERS:-10}
cleanup_on_exit
work_tmp invalidation
use_hub_server release
log "hub-server: $HUB_BIN"

pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_dir="$WORK_TMP/pg"
pg_port=$(free_port)
mkdir -p "$pg_dir"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$pg_dir"
as_postgres "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w \
    -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c max_connections=100" start >/dev/null
stop_pg() { as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate -w stop >/dev/null 2>&1 || true; }
trap 'stop_pg; cleanup' EXIT

upstream_port=$(free_port)
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
config="$WORK_TMP/config"
mkdir -p "$config/features"
cat >"$config/server.json" <<JSON
{ "host": "127.0.0.1", "log": { "level": "warning" }, "reload": { "watch": false },
  "limits": { "sessionsPerClient": { "perSecond": 1000000, "burst": 1000000 } } }
JSON
cat >"$config/features/news.json" <<JSON
{ "id": "news", "title": "News", "match": { "root": "hub:news" }, "reload": "never",
  "operations": [ { "kind": "remote", "url": "http://127.0.0.1:$upstream_port/news/{uri.2}" } ] }
JSON

export HUB_STATE_BACKEND=postgres HUB_STATE_URL="postgresql://postgres@127.0.0.1:$pg_port/postgres"
export HUB_INVALIDATION_SECRETS=$secret
mkdir -p "$WORK_TMP/data-a" "$WORK_TMP/data-b"
HUB_DATA_DIR="$WORK_TMP/data-a" start_hub "$config" "" "$WORK_TMP/hub-a.log"
port_a=$HUB_PORT_USED
HUB_DATA_DIR="$WORK_TMP/data-b" start_hub "$config" "" "$WORK_TMP/hub-b.log"
port_b=$HUB_PORT_USED
log "PostgreSQL on $pg_port, replica A on $port_a, replica B on $port_b, upstream on $upstream_port"

python3 "$(dirname "$0")/invalidation_latency.py" \
    --upstream-port "$upstream_port" --a "$port_a" --b "$port_b" --secret "$secret" \
    --count "$count" --listeners "$listeners"
echo "(hub-server $(basename "$(dirname "$HUB_BIN")") build; load average $(load_average))"
