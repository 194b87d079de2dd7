#!/usr/bin/env bash
# The test suite under CPU load: runs the built suite and the README check (what `make test`
# runs) RUNS times (default 10) with two CPU-burning processes beside it, and prints
# "stress: N of RUNS green". Exits non-zero unless every run passed. `make test-stress`
# builds first; STRESS_RUNS picks the count.
set -u
cd "$(dirname "$0")/../.."
runs=${1:-10}
swift=${SWIFT:-swift}

burners=()
stop_burners() { for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null; done; }
trap stop_burners EXIT
trap 'exit 130' INT TERM
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    burners+=($!)
done

green=0
for run in $(seq 1 "$runs"); do
    log=".build/stress-$run.log"
    started=$(date +%s)
    if "$swift" test --skip-build >"$log" 2>&1 && Tests/system/readme.sh >>"$log" 2>&1; then
        green=$((green + 1))
        echo "stress: run $run green ($(( $(date +%s) - started )) s)"
    else
        echo "stress: run $run FAILED ($(( $(date +%s) - started )) s, log $log)"
        grep -E "✘|readme:" "$log" | head -20
    fi
done
echo "stress: $green of $runs green"
[ "$green" -eq "$runs" ]
