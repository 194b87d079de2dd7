#!/usr/bin/env bash
# The HubServer benchmark, in one command (`make bench`): builds release, then on loopback
# in one session runs
#   - HubServer (Benchmarks/bench/config): a 60-component view (~33 KB) from a chain of three
#     operations, static, patch and remote (a local Python upstream answering with
#     Cache-Control: max-age=3600, so the chain is memoized), as GET /view?uri=hub:bench
#     (a new session per request) and GET /view?session=S (one session, reload "never");
#   - nginx (Debian package, own prefix and config, one worker per core) serving the exact
#     bytes of that view as a static file (and HubServer's own gzip bytes with gzip_static);
#   - the Hummingbird 2 app of Benchmarks/HummingbirdApp (its own package) building the same
#     view from Swift structs with JSONEncoder per request (gzip with compress-nio per request);
# with wrk at 8, 32 and 128 connections, with and without gzip, repetitions interleaved, and
# prints one table of requests/s, p50 and p99 with HubServer's ratios to nginx and Hummingbird.
# Then (unless BENCH_FIGURES=0) the figures of Benchmarks/bench/figures.sh.
#
#   Benchmarks/run.sh                      # about 12 minutes from a fresh clone, builds included
#   BENCH_SECONDS=4 BENCH_REPS=3 BENCH_CONNS="8 32 128" BENCH_FIGURES=1 Benchmarks/run.sh
#   BENCH_HUMMINGBIRD=0 BENCH_CONNS=32 BENCH_FIGURES=0 Benchmarks/run.sh   # HubServer vs nginx only
#
# Results go to Benchmarks/bench/results/<UTC time>/ (not committed).
set -euo pipefail
source "$(dirname "$0")/bench/lib.sh"

SECONDS_PER_RUN=${BENCH_SECONDS:-4}
REPS=${BENCH_REPS:-3}
CONNS=${BENCH_CONNS:-"8 32 128"}
FIGURES=${BENCH_FIGURES:-1}
HUMMINGBIRD=${BENCH_HUMMINGBIRD:-1}
started=$(date +%s)

cleanup_on_exit
ensure_tools
raise_nofile
build_hub_server release
[ "$HUMMINGBIRD" = 1 ] && build_hummingbird

out="$BENCH_DIR/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
results="$out/results.jsonl"
: >"$results"
work_tmp bench
tmp=$WORK_TMP

{
    echo "date: $(date -u +%FT%TZ)"
    echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
    echo "cpu: $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
    echo "swift: $(swift --version 2>&1 | head -n 1)"
    echo "nginx: $(nginx -v 2>&1)"
    echo "wrk: $(wrk -v 2>&1 | head -n 1)"
    echo "git: $(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "load before: $(load_average)"
    echo "wrk: -t2 -d${SECONDS_PER_RUN}s --latency; connections: $CONNS; repetitions: $REPS"
} | tee "$out/environment.txt"

start_upstream 3600
start_hub "$BENCH_DIR/config" "$HUB_PORT_BENCH" "$tmp/hub.log"
view_url="http://127.0.0.1:$HUB_PORT_BENCH/view?uri=hub:bench"
# The first view fetches the upstream; the next ones find the chain memoized.
for _ in 1 2 3; do curl -sf -o /dev/null "$view_url"; done
curl -sf "$view_url" -o "$tmp/view.json"
curl -sf -H 'Accept-Encoding: gzip' "$view_url" -o "$tmp/view.json.gz"
session=$(session_of "$view_url")
session_url="http://127.0.0.1:$HUB_PORT_BENCH/view?session=$session"

mkdir -p "$tmp/html"
cp "$tmp/view.json" "$tmp/html/view.json"
cp "$tmp/view.json.gz" "$tmp/html/view.json.gz"
chmod -R a+rX "$tmp/html"
start_nginx "$tmp/html"
[ "$HUMMINGBIRD" = 1 ] && start_hummingbird

# The same view everywhere: nginx serves HubServer's bytes; Hummingbird's JSON is equal.
curl -sf "http://127.0.0.1:$NGINX_PORT/view.json" -o "$tmp/nginx.json"
cmp -s "$tmp/view.json" "$tmp/nginx.json" || { echo "nginx does not serve the view's bytes" >&2; exit 1; }
if [ "$HUMMINGBIRD" = 1 ]; then curl -sf "http://127.0.0.1:$HB_PORT/view" -o "$tmp/hummingbird.json"; else cp "$tmp/view.json" "$tmp/hummingbird.json"; fi
python3 - "$tmp/view.json" "$tmp/hummingbird.json" "$tmp/view.json.gz" <<'PY' | tee "$out/view.txt"
import gzip, json, sys
hub, hb = (json.load(open(p)) for p in sys.argv[1:3])
assert hub == hb, "Hummingbird's view differs from HubServer's"
size = len(open(sys.argv[1], "rb").read())
gz = len(open(sys.argv[3], "rb").read())
assert gzip.decompress(open(sys.argv[3], "rb").read()) == open(sys.argv[1], "rb").read()
print(f"view: {len(hub['body'])} body components + header, {size} bytes ({gz} gzipped); "
      f"Hummingbird's JSON is equal (key order differs: JSONEncoder), {len(open(sys.argv[2], 'rb').read())} bytes")
PY

targets=(hub hub-session nginx)
[ "$HUMMINGBIRD" = 1 ] && targets+=(hummingbird)
declare -A urls=(
    [hub]="$view_url"
    [hub-session]="$session_url"
    [nginx]="http://127.0.0.1:$NGINX_PORT/view.json"
    [hummingbird]="http://127.0.0.1:$HB_PORT/view"
)

run_wrk() { # target conns gzip rep seconds
    local target=$1 conns=$2 gzip=$3 rep=$4 seconds=$5 file="$tmp/wrk.txt"
    local header=()
    [ "$gzip" = yes ] && header=(-H 'Accept-Encoding: gzip')
    timeout $((seconds + 30)) wrk -t2 -c"$conns" -d"${seconds}s" --latency "${header[@]}" "${urls[$target]}" >"$file" 2>&1
    if [ "$rep" -gt 0 ]; then
        python3 "$BENCH_DIR/report.py" parse "$file" target="$target" conns="$conns" gzip="$gzip" rep="$rep" >>"$results"
    fi
}

log "warm-up: 1 s per server"
for target in "${targets[@]}"; do run_wrk "$target" 32 no 0 1; run_wrk "$target" 32 yes 0 1; done

total=$((REPS * $(wc -w <<<"$CONNS") * 2 * ${#targets[@]}))
n=0
for rep in $(seq "$REPS"); do
    for conns in $CONNS; do
        for gzip in no yes; do
            for target in "${targets[@]}"; do
                n=$((n + 1))
                run_wrk "$target" "$conns" "$gzip" "$rep" "$SECONDS_PER_RUN"
                log "$n/$total rep $rep, $conns conns, gzip $gzip, $target: $(tail -n 1 "$results" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("%s req/s, p99 %.2f ms" % (format(r["rps"], ",.0f"), r["p99_ms"]))')"
            done
        done
    done
done
echo "load after: $(load_average)" | tee -a "$out/environment.txt"
echo "hub-server RSS after the table: $(($(rss_kib "$HUB_PID") / 1024)) MiB; $(curl -sf "http://127.0.0.1:$HUB_PORT_BENCH/health")" \
    | tee -a "$out/environment.txt"

echo
echo "== GET /view, ${SECONDS_PER_RUN} s per run, wrk -t2 on loopback ($(nproc) cores shared by wrk and the server)"
python3 "$BENCH_DIR/report.py" table "$results" | tee "$out/table.txt"
python3 "$BENCH_DIR/report.py" table "$results" --markdown >"$out/table.md"

# The servers of the table stop before the figures start theirs.
cleanup

if [ "$FIGURES" = 1 ]; then
    echo
    "$BENCH_DIR/figures.sh" 2>&1 | tee "$out/figures.txt"
fi
echo
echo "results in ${out#"$REPO_DIR"/}; total $(($(date +%s) - started)) s"
