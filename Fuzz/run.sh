#!/usr/bin/env bash
# Builds and runs a libFuzzer target: Fuzz/run.sh NAME [SECONDS]
#   json  - HubModel's JSON parser, schema reader and serializer
#   http  - HubHTTP's incremental request parser (whole vs piecewise feeding must agree)
# The module's sources are compiled into the fuzzer binary (swiftc -sanitize=fuzzer,address).
# Crashes are written to Fuzz/out/NAME/ as crash-* files; the corpus grows in Fuzz/out/NAME/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: Fuzz/run.sh NAME [SECONDS]}
seconds=${2:-300}
out=Fuzz/out/$name
mkdir -p "$out/corpus"
export SWIFT_BACKTRACE=enable=no

case "$name" in
json)
    sources=$(find Sources/HubModel -name '*.swift')
    flags=()
    ;;
http)
    sources=$(find Sources/HubHTTP -name '*.swift')
    # HubHTTP imports HubSync (a module of its own) and the CEpoll/CZlib headers.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HubSync -emit-library -static \
        -emit-module -emit-module-path "$out/HubSync.swiftmodule" Sources/HubSync/*.swift -o "$out/libHubSync.a"
    flags=(-I Sources/CZlib -I Sources/CEpoll -I "$out" -L "$out" -lHubSync -lz)
    ;;
*)
    echo "unknown fuzz target: $name" >&2
    exit 2
    ;;
esac

# Seed corpus: the target's seeds, if any.
if [ -d "Fuzz/$name/seeds" ]; then cp -n Fuzz/$name/seeds/* "$out/corpus/" 2>/dev/null || true; fi

swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name Fuzz"$name" \
    "${flags[@]}" $sources Fuzz/$name/*.swift -o "$out/fuzzer"
"$out/fuzzer" -max_total_time="$seconds" -max_len=65536 -artifact_prefix="$out/" \
    -print_final_stats=1 "$out/corpus" 2>&1 | tee "$out/last-run.log" | grep -E "^#[0-9]+ *(DONE|pulse)|stat::|ERROR|SUMMARY" || true
if ls "$out"/crash-* >/dev/null 2>&1; then echo "FAIL: crashes in $out"; exit 1; fi
echo "OK: no crash in ${seconds}s"
