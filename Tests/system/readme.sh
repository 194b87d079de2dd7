#!/usr/bin/env bash
# Runs the curl lines of the README and of every docs/ page as a newcomer would paste them,
# against the demo server (Config/) built by `swift build` (.build/debug/hub-server, or
# $HUB_SERVER_BINARY), started on a free loopback port by Tests/system/lib.sh. Every ```sh block that talks to localhost:8080 runs as one bash script
# (so S=... carries over), with localhost:8080 pointed at a server on a free port. Each curl must answer 2xx
# within its time limit (an SSE stream ending at its --max-time counts as answered), each
# block must print something, and the streaming line must print an `event: view`.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/system/lib.sh
HUB_BIN=${HUB_SERVER_BINARY:-.build/debug/hub-server}
[ -x "$HUB_BIN" ] || { echo "readme: $HUB_BIN is missing; run swift build first" >&2; exit 1; }
for tool in curl jq; do command -v "$tool" >/dev/null || { echo "readme: $tool is not installed (make deps installs it)" >&2; exit 1; }; done

cleanup_on_exit
work_tmp readme
work=$WORK_TMP
# The server and the blocks' own commands (`hub-server dev-token` reads the key the server made)
# share a data directory of the run's, as a newcomer's `.hub-data/` is shared by both.
export HUB_DATA_DIR="$work/data"
start_hub Config "" "$work/server.log"
port=$HUB_PORT_USED

# The sh blocks of README.md and docs/*.md that use the server, one file each (named after
# the page, so a failure says where the block is).
for page in README.md docs/*.md; do
    awk -v dir="$work" -v page="$(basename "$page" .md)" '
        /^```sh$/ { inside = 1; n++; body = ""; next }
        /^```$/ && inside { inside = 0; if (body ~ /localhost:8080/) { file = sprintf("%s/block-%s-%02d.sh", dir, page, n); printf "%s", body > file; close(file) }; next }
        inside { body = body $0 "\n" }
    ' "$page"
done

# curl as the README calls it, with a time limit, failing on a non-2xx answer; a stream
# (-N) that is still open when its time is up has answered. A line whose comment starts
# with a 4xx or 5xx status (`# 404, ...`) runs with EXPECT_STATUS set: it must fail with it.
cat >"$work/prelude.sh" <<'PRELUDE'
curl() {
    local streaming=0 status=0
    for argument in "$@"; do case "$argument" in -*N*) [ "${argument#--}" = "$argument" ] && streaming=1 ;; esac; done
    if [ -n "${EXPECT_STATUS:-}" ]; then
        local code
        code=$(command curl --max-time 30 -s -o /dev/null -w '%{http_code}' "$@") || true
        [ "$code" = "$EXPECT_STATUS" ] || { echo "readme: curl $* answered $code, README says $EXPECT_STATUS" >&2; return 1; }
        command curl --max-time 30 "$@"
        return
    fi
    command curl --max-time 30 --fail-with-body "$@" || status=$?
    if [ "$status" -eq 28 ] && [ "$streaming" -eq 1 ]; then return 0; fi
    if [ "$status" -ne 0 ]; then echo "readme: curl $* exited $status" >&2; fi
    return "$status"
}
PRELUDE

failed=0
blocks=0
for block in "$work"/block-*.sh; do
    blocks=$((blocks + 1))
    script="$work/run-$(basename "$block")"
    { cat "$work/prelude.sh"
      sed -E -e "s/localhost:8080/127.0.0.1:$port/g" -e "s#\.build/release/hub-server#$HUB_BIN#g" -e 's/^(curl .*# ([45][0-9][0-9])\b.*)$/EXPECT_STATUS=\2 \1/' "$block"
    } >"$script"
    if ! bash -euo pipefail "$script" >"$script.out" 2>&1; then
        echo "readme: FAILED block $(basename "$block"):"; cat "$block"; echo "--- output:"; tail -20 "$script.out"
        failed=1
    elif [ ! -s "$script.out" ]; then
        echo "readme: block $(basename "$block") printed nothing:"; cat "$block"; failed=1
    elif grep -q 'view/events' "$block" && ! grep -q 'event: view' "$script.out"; then
        echo "readme: the SSE line of $(basename "$block") sent no event:"; tail -5 "$script.out"; failed=1
    fi
done
[ "$blocks" -gt 0 ] || { echo "readme: no curl blocks found in README.md or docs/" >&2; exit 1; }
for page in README API; do
    ls "$work"/block-"$page"-*.sh >/dev/null 2>&1 || { echo "readme: no curl blocks found in $page" >&2; exit 1; }
done
# docs/PERFORMANCE.md is one page a reader reads whole: at most 400 lines (the history of the
# passes lives in docs/performance/history.md).
performance_lines=$(wc -l <docs/PERFORMANCE.md)
if [ "$performance_lines" -gt 400 ]; then
    echo "readme: docs/PERFORMANCE.md has $performance_lines lines, more than 400; move history to docs/performance/history.md"
    failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "readme: $blocks blocks of curl lines in README.md and docs/ answered; docs/PERFORMANCE.md $performance_lines lines"
