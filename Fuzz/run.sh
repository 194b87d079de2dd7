#!/usr/bin/env bash
# Builds and runs a libFuzzer target: Fuzz/run.sh NAME [SECONDS]
#   json  - HubModel's JSON parser, schema reader and serializer
#   http  - HubHTTP's incremental request parser (whole vs piecewise feeding must agree)
#   app   - whole requests through the parser, the middleware, the endpoints and the engine of
#           the demo Config/ (HubApplication.respond(to:), in memory)
# json/http: the module's sources are compiled into the fuzzer binary (swiftc -sanitize=fuzzer,address).
# app: every module is compiled as its own static library with the same sanitizers, in
# dependency order, into Fuzz/out/app/modules; then the harness is linked against them.
# Crashes are written to Fuzz/out/NAME/ as crash-* (timeout-*, oom-*) files; the corpus grows in Fuzz/out/NAME/corpus.
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
    fuzz_options=()
    ;;
http)
    sources=$(find Sources/HubHTTP -name '*.swift')
    # HubHTTP imports HubSync and HubPrimitives (modules of their own) and the CEpoll/CZlib headers.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name hubserver -module-name HubSync -emit-library -static \
        -emit-module -emit-module-path "$out/HubSync.swiftmodule" Sources/HubSync/*.swift -o "$out/libHubSync.a"
    swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name hubserver -module-name HubPrimitives -emit-library -static \
        -I "$out" -emit-module -emit-module-path "$out/HubPrimitives.swiftmodule" Sources/HubPrimitives/*.swift \
        -o "$out/libHubPrimitives.a"
    flags=(-I Sources/CZlib -I Sources/CEpoll -I "$out" -L "$out" -lHubPrimitives -lHubSync -lz)
    fuzz_options=()
    ;;
app)
    mods="$out/modules"
    mkdir -p "$mods"
    # Swift 6 mode and the upcoming features of Package.swift; -enable-testing lets the harness
    # reach HubHTTP's internal ResponseEncoder and RequestTarget.
    language=(-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
        -enable-testing -I Sources/CCurl -I Sources/CCrypto -I Sources/CZlib -I Sources/CEpoll -I Sources/CSQLite
        -I Sources/CPostgres -Xcc -I/usr/include/postgresql -I "$mods")
    # Module names as in Package.swift, so the sources' import lines work unchanged.
    # HubServer's embedded resources (Package.swift `.embedInCode`), written as SwiftPM writes them.
    python3 - "$mods/HubServerResources.swift" <<'PY'
import os, re, sys
lines = ["struct PackageResources {"]
for root in ("Sources/HubServer/Resources", "Sources/HubServer/Endpoints/Preview/Page"):
    for directory, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            data = open(os.path.join(directory, name), "rb").read()
            lines.append("static let %s: [UInt8] = [%s]" % (re.sub(r"[^A-Za-z0-9_]", "_", name), ",".join(map(str, data))))
open(sys.argv[1], "w").write("\n".join(lines + ["}", ""]))
PY
    for module in HubSync HubPrimitives HubModel HubEngine HubState HubUpstream HubHTTP HubMetrics HubServer HubDemo; do
        echo "building $module"
        extra=()
        if [ "$module" = HubServer ]; then extra=("$mods/HubServerResources.swift"); fi
        swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name hubserver -wmo "${language[@]}" -module-name "$module" -emit-library -static \
            -emit-module -emit-module-path "$mods/$module.swiftmodule" \
            $(find "Sources/$module" -name '*.swift') "${extra[@]}" -o "$mods/lib$module.a"
    done
    sources=""
    flags=("${language[@]}" -L "$mods" -lHubDemo -lHubServer -lHubMetrics -lHubHTTP -lHubUpstream -lHubState -lHubEngine -lHubModel -lHubPrimitives -lHubSync -lcurl -lcrypto -lsqlite3 -lpq -lz)
    # LeakSanitizer is off: Swift packs pointers with spare bits in enum payloads, so LSan
    # reports the long-lived application (built once, in LLVMFuzzerInitialize) as leaked.
    # Growth shows up in libFuzzer's rss instead (-rss_limit_mb, default 2048).
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
    fuzz_options=(-timeout=30 -detect_leaks=0 -dict=Fuzz/app/app.dict)
    max_len=16384
    ;;
*)
    echo "unknown fuzz target: $name" >&2
    exit 2
    ;;
esac

# Seed corpus: the target's seeds, if any.
if [ -d "Fuzz/$name/seeds" ]; then cp -n Fuzz/$name/seeds/* "$out/corpus/" 2>/dev/null || true; fi

swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name hubserver -module-name Fuzz"$name" \
    "${flags[@]}" $sources Fuzz/$name/*.swift -o "$out/fuzzer"
"$out/fuzzer" -max_total_time="$seconds" -max_len="${max_len:-65536}" "${fuzz_options[@]}" -artifact_prefix="$out/" \
    -print_final_stats=1 "$out/corpus" 2>&1 | tee "$out/last-run.log" | grep -E "^#[0-9]+ *(DONE|pulse)|stat::|ERROR|SUMMARY" || true
if [ -n "$(find "$out" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) -print -quit)" ]; then echo "FAIL: crashes in $out"; exit 1; fi
echo "OK: no crash in ${seconds}s"
