#!/usr/bin/env bash
# Memory per held session for 1, 50 and 100 items, on the demo's todo list and on a remote view
# of its own per session (session_memory.py; docs/PERFORMANCE.md "Memory per held session").
#   Benchmarks/memory/session-memory.sh [session_memory.py options, e.g. --sessions 400]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="$root/.build/release/hub-server"
[ -x "$binary" ] || (cd "$root" && swift build -c release --product hub-server 2>&1 | tail -n 3)
exec python3 "$root/Benchmarks/memory/session_memory.py" --binary "$binary" "$@"
