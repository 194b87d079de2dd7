#!/usr/bin/env bash
# Upstream faults: a remote operation whose upstream is slow (3 s against a 500 ms timeout),
# answers 500, resets the connection, answers invalid JSON, or sends 16 MiB (above
# upstream.maxResponseBytes = 1 MiB). Each must give a clean problem (504/502 with
# application/problem+json and a code) or, with a `recover` operation after it, a recovered
# 200 view; meanwhile the server keeps serving: a wrk load on /view?uri=hub:bench runs during
# the faults and must see no error, and /health answers at the end.
#
#   Tests/system/robustness/upstream-faults.sh        (about 30 s; prints PASS or FAIL)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ROBUST_DIR="$SYSTEM_DIR/robustness"
robustness_setup 300
start_hub "$ROBUST_DIR/config" "$CHECK_PORT" "$WORK_TMP/hub.log"
base="http://127.0.0.1:$CHECK_PORT"
for _ in 1 2 3; do curl -sf -o /dev/null "$base/view?uri=hub:bench"; done

# Background load on the normal view while the faults run (bounded: 20 s).
timeout 40 wrk -t1 -c8 -d20s --latency "$base/view?uri=hub:bench" >"$WORK_TMP/wrk.txt" 2>&1 &
wrk_pid=$!
track "$wrk_pid"
sleep 1

python3 - "$base" <<'PY' | tee "$WORK_TMP/faults.txt"
import json, sys, time, urllib.request, urllib.error
from concurrent.futures import ThreadPoolExecutor
base = sys.argv[1]
# fault -> (status, problem code) without recover
expected = {
    "slow": (504, "upstream_timeout"),
    "500": (502, "upstream_error"),
    "reset": (502, "upstream_error"),
    "invalid": (502, "upstream_error"),
    "huge": (502, "upstream_error"),
}

def get(path):
    start = time.monotonic()
    request = urllib.request.Request(base + path)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, body, ctype = response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, body, ctype = error.code, error.read(), error.headers.get("Content-Type", "")
    return status, body, ctype, (time.monotonic() - start) * 1000

failures = 0
for fault, (want_status, want_code) in expected.items():
    # 10 views each, 5 at a time, distinct URLs (no coalescing, no caching).
    with ThreadPoolExecutor(5) as pool:
        plain = list(pool.map(lambda i: get(f"/view?uri=hub:fault:{fault}%3Fv%3D{i}"), range(10)))
        recovered = list(pool.map(lambda i: get(f"/view?uri=hub:recovered:{fault}%3Fv%3D{i}"), range(10)))
    ok_plain = 0
    detail = ""
    for status, body, ctype, ms in plain:
        try:
            problem = json.loads(body)
        except ValueError:
            problem = {}
        if status == want_status and ctype.startswith("application/problem+json") and problem.get("code") == want_code:
            ok_plain += 1
        detail = problem.get("detail", "")[:110]
    ok_recovered = 0
    for status, body, ctype, ms in recovered:
        try:
            view = json.loads(body)
        except ValueError:
            view = {}
        ids = [c.get("id") for c in view.get("body", [])]
        if status == 200 and ids == ["first", "offline"]:
            ok_recovered += 1
    worst = max(ms for *_, ms in plain + recovered)
    good = ok_plain == 10 and ok_recovered == 10
    failures += 0 if good else 1
    print(f"{'ok  ' if good else 'FAIL'} {fault:<8} {ok_plain}/10 -> {want_status} {want_code}, "
          f"{ok_recovered}/10 recovered 200; slowest {worst:.0f} ms; detail: {detail}")
print(f"fault kinds failing: {failures}")
PY
wait "$wrk_pid" || true
health=$(curl -sf "$base/health" || echo "no answer")
read -r rps p99 errors < <(python3 "$BENCH_DIR/report.py" parse "$WORK_TMP/wrk.txt" \
    | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["rps"], r["p99_ms"], r["errors"] + r["non2xx"])')
echo "meanwhile /view?uri=hub:bench (wrk -c8, 20 s): $rps req/s, p99 $p99 ms, $errors errors; /health: $health"
echo "server still running: $(kill -0 "$HUB_PID" 2>/dev/null && echo yes || echo NO)"
if grep -q "fault kinds failing: 0" "$WORK_TMP/faults.txt" && [ "$errors" = 0 ] && [ "$health" != "no answer" ]; then
    echo "PASS upstream-faults: slow, 500, reset, invalid JSON, huge body: each a clean problem or a recovered view; 0 errors for other clients"
else
    echo "FAIL upstream-faults"
    exit 1
fi
