#!/usr/bin/env bash
# Upstream faults: a remote operation whose upstream is slow (3 s against a 500 ms timeout),
# answers 500, resets the connection, answers invalid JSON, or sends 16 MiB (above
# upstream.maxResponseBytes = 1 MiB). Each must give a clean problem (504/502 with
# application/problem+json and a code) or, with a `recover` operation after it, a recovered
# 200 view. Stale cases: with `staleIfErrorSeconds`, an upstream that answered once and then
# is slow, answers 500, resets or answers invalid JSON gives 200 with its first content and a
# `Hub-Stale` header; with `staleWhileRevalidateSeconds`, 20 concurrent views after freshness
# ends all get the old content and the upstream sees one refresh. Meanwhile the server keeps
# serving: a wrk load on /view?uri=hub:bench runs during the faults and must see no error,
# and /health answers at the end.
#
#   Tests/system/robustness/upstream-faults.sh        (about 30 s; prints PASS or FAIL)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ROBUST_DIR="$SYSTEM_DIR/robustness"
robustness_setup 300
start_bench_hub "$ROBUST_DIR/config"

# Background load on the normal view while the faults run (bounded: 20 s).
timeout 40 wrk -t1 -c8 -d20s --latency "$base/view?uri=hub:bench" >"$WORK_TMP/wrk.txt" 2>&1 &
wrk_pid=$!
track "$wrk_pid"
sleep 1

python3 - "$base" <<'PY' | tee "$WORK_TMP/faults.txt"
import json, re, sys, time, urllib.parse, urllib.request, urllib.error
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

def fetch(path):
    start = time.monotonic()
    request = urllib.request.Request(base + path)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, body, headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, body, headers = error.code, error.read(), error.headers
    return status, body, headers, (time.monotonic() - start) * 1000

def get(path):
    status, body, headers, ms = fetch(path)
    return status, body, headers.get("Content-Type", ""), ms

def stale_view(status, body, headers):
    """200 with the upstream's first content and a Hub-Stale entry for the remote operation."""
    try:
        ids = [c.get("id") for c in json.loads(body).get("body", [])]
    except (ValueError, AttributeError):
        ids = []
    return status == 200 and ids == ["good"] and re.fullmatch(r"remote;age=\d+", headers.get("Hub-Stale", "")) is not None

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

# staleIfErrorSeconds: one good answer per URL, then the fault: 5 URLs per fault, 5 at a time.
for fault in ["slow", "500", "reset", "invalid"]:
    def twice(i):
        first = fetch(f"/view?uri=hub:stale:{fault}%3Fv%3D{i}")
        second = fetch(f"/view?uri=hub:stale:{fault}%3Fv%3D{i}")
        return first, second
    with ThreadPoolExecutor(5) as pool:
        pairs = list(pool.map(twice, range(5)))
    fresh = sum(1 for (s, b, h, _), _ in pairs if s == 200 and "Hub-Stale" not in h)
    stale = sum(1 for _, (s, b, h, _) in pairs if stale_view(s, b, h))
    worst = max(ms for pair in pairs for *_, ms in pair)
    good = fresh == 5 and stale == 5
    failures += 0 if good else 1
    example = next((h.get("Hub-Stale") for _, (s, b, h, _) in pairs if h.get("Hub-Stale")), "none")
    print(f"{'ok  ' if good else 'FAIL'} stale {fault:<8} {fresh}/5 fresh, then {stale}/5 -> 200 first content, "
          f"Hub-Stale ({example}); slowest {worst:.0f} ms")

# staleWhileRevalidateSeconds: fresh for 5 s (max-age=5), then 20 views at once while the one
# refresh takes 0.5 s upstream: none waits for it.
url = "/stale/swr?v=1"
first = fetch("/view?uri=hub:swr%3Fv%3D1")
time.sleep(5.2)
with ThreadPoolExecutor(20) as pool:
    burst = list(pool.map(lambda _: fetch("/view?uri=hub:swr%3Fv%3D1"), range(20)))
stale = sum(1 for s, b, h, _ in burst if s == 200 and "answer 1" in b.decode() and h.get("Hub-Stale"))
followed = False
for _ in range(100):
    s, b, h, _ = fetch("/view?uri=hub:swr%3Fv%3D1")
    if s == 200 and "answer 2" in b.decode() and not h.get("Hub-Stale"):
        followed = True
        break
    time.sleep(0.05)
with urllib.request.urlopen(base.rsplit(":", 1)[0] + ":18081/seen?url=" + urllib.parse.quote(url), timeout=5) as r:
    upstream_requests = json.loads(r.read())["requests"]
worst = max(ms for *_, ms in burst)
good = first[0] == 200 and stale == 20 and followed and upstream_requests == 2
failures += 0 if good else 1
print(f"{'ok  ' if good else 'FAIL'} stale-while-revalidate: {stale}/20 old content at once (slowest {worst:.0f} ms), "
      f"views follow the refresh: {'yes' if followed else 'NO'}, upstream requests {upstream_requests} (1 + one refresh)")
print(f"fault kinds failing: {failures}")
PY
wait "$wrk_pid" || true
health=$(curl -sf "$base/health" || echo "no answer")
read -r rps p99 errors < <(python3 "$BENCH_DIR/report.py" parse "$WORK_TMP/wrk.txt" \
    | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["rps"], r["p99_ms"], r["errors"] + r["non2xx"])')
echo "meanwhile /view?uri=hub:bench (wrk -c8, 20 s): $rps req/s, p99 $p99 ms, $errors errors; /health: $health"
echo "server still running: $(kill -0 "$HUB_PID" 2>/dev/null && echo yes || echo NO)"
if grep -q "fault kinds failing: 0" "$WORK_TMP/faults.txt" && [ "$errors" = 0 ] && [ "$health" != "no answer" ]; then
    echo "PASS upstream-faults: slow, 500, reset, invalid JSON, huge body: each a clean problem or a recovered view; stale content with Hub-Stale for each, one background refresh for 20 views; 0 errors for other clients"
else
    echo "FAIL upstream-faults"
    exit 1
fi
