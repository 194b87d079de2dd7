#!/usr/bin/env bash
# `make release-pgo`: hub-server built with profile-guided optimization (LLVM's IR-level PGO,
# Swift 6.3 or later), in three steps:
#   1. an instrumented release build (.build-pgo/generate), whose binary counts how often each
#      branch of its own code runs;
#   2. a training run: that binary serves the demo config (Config/, a data directory of its own)
#      while Tools/pgo/train.py sends it a deployment's mix of requests for PGO_TRAIN_SECONDS
#      (default 40), then drains on SIGTERM and writes its counts; llvm-profdata merges them;
#   3. the release build with that profile (.build-pgo/use), which lays out hot code together
#      and moves cold branches out of the way. It prints the binary's path last.
# The training never sees the benchmark's realistic config: `make bench-cpu` measures views the
# profile was not made from. Loopback only. About twice a release build's time.
#
#   Tools/pgo/build.sh                 (make release-pgo)
#   PGO_TRAIN_SECONDS=20 Tools/pgo/build.sh
set -euo pipefail
source "$(cd "$(dirname "$0")/../.." && pwd)/Tests/system/lib.sh"
cd "$REPO_DIR"
SWIFT=${SWIFT:-swift}
OUT="$REPO_DIR/.build-pgo"
PROFILES="$OUT/profiles"

# The toolchain's own llvm-profdata: the profile format is the compiler's (a distribution's
# older llvm-profdata cannot read it).
TOOLCHAIN_BIN=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")
PROFDATA="$TOOLCHAIN_BIN/llvm-profdata"
[ -x "$PROFDATA" ] || { echo "build.sh: no llvm-profdata beside $SWIFT ($PROFDATA)" >&2; exit 1; }
# IR-level PGO is a frontend option from Swift 6.3 (the driver of 6.3 does not pass it on yet,
# hence -Xfrontend; the profiling runtime is linked by clang with -fprofile-generate).
FRONTEND_OPTIONS=$("$TOOLCHAIN_BIN/swift-frontend" -frontend -help-hidden 2>/dev/null || true)
[[ "$FRONTEND_OPTIONS" == *-ir-profile-use* ]] \
    || { echo "build.sh: this Swift has no IR-level PGO (-ir-profile-use; Swift 6.3 or later)" >&2; exit 1; }

log "pgo 1/3 instrumented build"
"$SWIFT" build -c release --product hub-server --scratch-path "$OUT/generate" \
    -Xswiftc -Xfrontend -Xswiftc -ir-profile-generate -Xswiftc -Xclang-linker -Xswiftc -fprofile-generate >&2
GENERATE_BIN="$("$SWIFT" build -c release --scratch-path "$OUT/generate" --show-bin-path)/hub-server"

log "pgo 2/3 training on the demo config"
cleanup_on_exit
work_tmp pgo
rm -rf "$PROFILES" && mkdir -p "$PROFILES"
PORT=$(free_port)
LLVM_PROFILE_FILE="$PROFILES/hub-%p.profraw" HUB_DATA_DIR="$WORK_TMP" HUB_HOST=127.0.0.1 HUB_PORT=$PORT \
    HUB_LOG_LEVEL=error "$GENERATE_BIN" serve --config "$REPO_DIR/Config" >"$WORK_TMP/serve.log" 2>&1 &
SERVER=$!
track "$SERVER"
wait_url "http://127.0.0.1:$PORT/health" || { cat "$WORK_TMP/serve.log" >&2; exit 1; }
python3 "$REPO_DIR/Tools/pgo/train.py" "http://127.0.0.1:$PORT" --seconds "${PGO_TRAIN_SECONDS:-40}"
# SIGTERM drains; the profiling runtime writes the counts as the process exits.
kill -TERM "$SERVER"
wait "$SERVER" || { echo "build.sh: the instrumented server did not exit cleanly" >&2; exit 1; }
forget_pid "$SERVER"
"$PROFDATA" merge -o "$OUT/hub-server.profdata" "$PROFILES"/hub-*.profraw
# A profile that missed the request path would build a binary no better than the plain one.
COUNTED=$("$PROFDATA" show --all-functions --counts "$OUT/hub-server.profdata" | grep -c 'RequestParser' || true)
[ "$COUNTED" -gt 0 ] || { echo "build.sh: the profile holds no counts of the request parser" >&2; exit 1; }

log "pgo 3/3 release build with the profile"
# The profile is passed under a name made from its contents: a new profile changes the compile
# commands, so every object is made again with it (the build system does not see a file named
# in a flag change, and a new profile does not change the sources), and the same profile
# rebuilds nothing. Deleting this package's objects instead would break the next build when no
# source changed: the build system does not plan again and finds its file maps gone.
PROFILE="$OUT/hub-server-$(sha256sum "$OUT/hub-server.profdata" | cut -c1-16).profdata"
find "$OUT" -maxdepth 1 -name 'hub-server-*.profdata' ! -path "$PROFILE" -delete
cp "$OUT/hub-server.profdata" "$PROFILE"
"$SWIFT" build -c release --product hub-server --scratch-path "$OUT/use" \
    -Xswiftc -Xfrontend -Xswiftc -ir-profile-use="$PROFILE" >&2
echo "$("$SWIFT" build -c release --scratch-path "$OUT/use" --show-bin-path)/hub-server"
