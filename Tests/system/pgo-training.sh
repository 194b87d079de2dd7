#!/usr/bin/env bash
# The training run of `make release-pgo` (Tools/pgo/train.py) against the demo config as
# shipped: its mix must be answered, not refused. Fails when the server answers 5xx or not at
# all, or refuses (4xx) more than 5% of the requests meant to succeed: a limit or an API change
# that the training would otherwise learn as the common path. A few seconds on the debug build.
#
#   Tests/system/pgo-training.sh        (make test; HUB_SERVER_BINARY=path another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/system/lib.sh
HUB_BIN=${HUB_SERVER_BINARY:-.build/debug/hub-server}
[ -x "$HUB_BIN" ] || { echo "pgo-training: $HUB_BIN is missing; run swift build first" >&2; exit 1; }

cleanup_on_exit
work_tmp pgo-training
export HUB_DATA_DIR="$WORK_TMP/data"
start_hub Config "" "$WORK_TMP/server.log"
python3 Tools/pgo/train.py "$HUB_URL" --seconds 5 --clients 4 --min-requests 200 \
    || { tail -n 20 "$WORK_TMP/server.log" >&2; exit 1; }
echo "pgo-training: the training mix was answered"
