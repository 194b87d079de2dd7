#!/usr/bin/env bash
# make test-starter: Examples/Starter used as an outside package uses it. A copy in a temporary
# directory outside the repository, its HubServer dependency pointed at this repository by
# absolute path, with a scratch path in that directory: `swift build`, `swift test`, then
# `swift run starter --help`, and `swift run starter` serving the starter's own feature on a
# loopback port (checked with curl, then stopped with SIGTERM: it drains and exits 0).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
SWIFT=${SWIFT:-swift}
work=$(mktemp -d "${TMPDIR:-/tmp}/hub-starter.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM -- "-$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: starter: $*" >&2; exit 1; }
for tool in curl jq setsid; do command -v "$tool" >/dev/null || fail "$tool is not installed (make deps)"; done

cp -R "$repo/Examples/Starter" "$work/Starter"
rm -rf "$work/Starter/.build"
cd "$work/Starter"
# The copy's one change: the dependency's path, from ../.. to the repository.
sed -i "s#path: \"../..\"#path: \"$repo\"#" Package.swift
grep -q "path: \"$repo\"" Package.swift || fail "Package.swift has no .package(name: \"HubServer\", path: \"../..\")"
scratch="$work/build"

"$SWIFT" build --scratch-path "$scratch" 2>&1 | tee "$work/build.log"
if grep -q "warning:" "$work/build.log"; then grep "warning:" "$work/build.log" | sort -u; fail "the build warns"; fi
echo "PASS: starter: swift build (outside the repository, HubServer by path)"
"$SWIFT" test --scratch-path "$scratch"
echo "PASS: starter: swift test"
# The tests keep their state and any generated key out of the package.
[ ! -e "$work/Starter/.hub-data" ] || fail "swift test left $(ls -A "$work/Starter/.hub-data" | tr '\n' ' ')in .hub-data/ of the package"
echo "PASS: starter: swift test writes nothing into the package (no .hub-data)"

"$SWIFT" run --skip-build --scratch-path "$scratch" starter --help >"$work/help.txt" || fail "starter --help exited $?"
grep -q "^USAGE: starter" "$work/help.txt" || fail "starter --help printed no usage: $(cat "$work/help.txt")"
echo "PASS: starter: swift run starter --help"

# Its own Config/server.json says 127.0.0.1:8080; port 0 picks a free port, logged on start.
# In a process group of its own, so that the cleanup reaches the server wherever swift run runs it.
HUB_PORT=0 setsid "$SWIFT" run --skip-build --scratch-path "$scratch" starter 2>"$work/server.log" &
server_pid=$!
port=""
for _ in $(seq 1 600); do  # up to 60 s on a loaded machine
    port=$(grep -o '"port":"\?[0-9]*' "$work/server.log" | head -1 | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "swift run starter exited"; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.log" >&2; fail "swift run starter did not start"; }
grep -q '"address":"127\.0\.0\.1:' "$work/server.log" || { cat "$work/server.log" >&2; fail "not listening on 127.0.0.1"; }
title=$(curl -sf --max-time 30 "http://127.0.0.1:$port/view?uri=starter:hello" | jq -r '.body[] | select(.id == "greeting") | .text.title')
[ "$title" = "Hello, world" ] || fail "GET /view?uri=starter:hello answered greeting '$title'"
echo "PASS: starter: swift run serves starter:hello on 127.0.0.1:$port (greeting: $title)"
# A second starter on the same (busy) port: a non-zero exit and one line naming the cause, no backtrace.
status=0
HUB_PORT=$port HUB_DATA_DIR="$work/data-busy" "$SWIFT" run --skip-build --scratch-path "$scratch" starter \
    >"$work/busy.out" 2>"$work/busy.err" || status=$?
lines=$(grep -c . "$work/busy.err" || true)
if [ "$status" -eq 0 ] || [ "$lines" -ne 1 ] || ! grep -q "^starter: cannot listen on 127.0.0.1:$port" "$work/busy.err" \
    || grep -qi "backtrace\|fatal error" "$work/busy.err"; then
    cat "$work/busy.err" >&2
    fail "starter on a busy port exited $status with $lines line(s)"
fi
echo "PASS: starter: a busy port exits $status with one line: $(cat "$work/busy.err")"
kill -TERM -- "-$server_pid"
status=0; wait "$server_pid" || status=$?
server_pid=""
[ "$status" -eq 0 ] || fail "swift run starter exited $status after SIGTERM"
echo "PASS: starter: SIGTERM drains and stops it"
