#!/usr/bin/env python3
"""wrk output -> JSON lines -> the bench table.

  report.py parse WRK_OUTPUT_FILE key=value...   prints one JSON line (the keys plus rps, p50_ms,
                                                 p99_ms, requests, errors, non2xx)
  report.py table RESULTS.jsonl [--markdown]     medians over repetitions, ratios, targets
"""
import json
import re
import statistics
import sys

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def latency_ms(text):
    match = re.match(r"([\d.]+)(us|ms|s|m)$", text)
    if not match:
        return None
    return float(match.group(1)) * UNITS[match.group(2)]


def parse(path, pairs):
    out = dict(pair.split("=", 1) for pair in pairs)
    for key in ("conns", "rep"):
        if key in out:
            out[key] = int(out[key])
    text = open(path).read()
    out["rps"] = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    for percent, key in (("50", "p50_ms"), ("99", "p99_ms")):
        match = re.search(r"^\s+%s%%\s+(\S+)" % percent, text, re.M)
        out[key] = latency_ms(match.group(1)) if match else None
    match = re.search(r"(\d+) requests in", text)
    out["requests"] = int(match.group(1)) if match else 0
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    out["errors"] = sum(int(x) for x in match.groups()) if match else 0
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["non2xx"] = int(match.group(1)) if match else 0
    print(json.dumps(out))


TARGET_NAMES = {
    "hub": "HubServer /view?uri= (new session)",
    "hub-session": "HubServer /view?session= (lookup)",
    "nginx": "nginx static file",
    "hummingbird": "Hummingbird 2 + JSONEncoder",
}
ORDER = ["hub", "hub-session", "nginx", "hummingbird"]


def table(path, markdown):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    groups = {}
    for row in rows:
        groups.setdefault((row["target"], row["gzip"], row["conns"]), []).append(row)

    def median(target, gzip, conns, key):
        values = [r[key] for r in groups.get((target, gzip, conns), []) if r.get(key) is not None]
        return statistics.median(values) if values else None

    conns_list = sorted({row["conns"] for row in rows})
    gzips = [g for g in ("no", "yes") if any(row["gzip"] == g for row in rows)]
    reps = max((row["rep"] for row in rows), default=0)
    errors = sum(row["errors"] + row["non2xx"] for row in rows)

    def fmt_rps(v):
        return "-" if v is None else f"{v:,.0f}"

    def fmt_ms(v):
        return "-" if v is None else (f"{v:.2f}" if v < 10 else f"{v:.1f}")

    def fmt_ratio(a, b):
        return "-" if a is None or not b else f"{a / b:.2f}x"

    lines = []
    header = ["gzip", "conns", "server", "req/s", "p50 ms", "p99 ms", "vs nginx", "vs Hummingbird"]
    if markdown:
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
    else:
        lines.append(f"{'gzip':<5}{'conns':>6}  {'server':<38}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'vs nginx':>10}{'vs HB':>9}")
    for gzip in gzips:
        for conns in conns_list:
            nginx = median("nginx", gzip, conns, "rps")
            hb = median("hummingbird", gzip, conns, "rps")
            for target in ORDER:
                if (target, gzip, conns) not in groups:
                    continue
                rps = median(target, gzip, conns, "rps")
                p50 = median(target, gzip, conns, "p50_ms")
                p99 = median(target, gzip, conns, "p99_ms")
                is_hub = target.startswith("hub")
                vs_nginx = fmt_ratio(rps, nginx) if is_hub else ""
                vs_hb = fmt_ratio(rps, hb) if is_hub else ""
                name = TARGET_NAMES.get(target, target)
                if markdown:
                    lines.append(f"| {gzip} | {conns} | {name} | {fmt_rps(rps)} | {fmt_ms(p50)} | {fmt_ms(p99)} | {vs_nginx} | {vs_hb} |")
                else:
                    lines.append(f"{gzip:<5}{conns:>6}  {name:<38}{fmt_rps(rps):>10}{fmt_ms(p50):>9}{fmt_ms(p99):>9}{vs_nginx:>10}{vs_hb:>9}")
        if not markdown:
            lines.append("")
    print("\n".join(lines))
    print(f"\nmedian of {reps} interleaved repetitions per cell; wrk errors (socket + non-2xx) over all runs: {errors}")

    # Targets of the issue, on /view?uri= (the new-session path), at every cell measured.
    print("\ntargets (HubServer /view?uri=):")
    verdicts = []
    for gzip in gzips:
        for conns in conns_list:
            rps = median("hub", gzip, conns, "rps")
            nginx = median("nginx", gzip, conns, "rps")
            hb = median("hummingbird", gzip, conns, "rps")
            if rps is None:
                continue
            a = rps / nginx if nginx else None
            b = rps / hb if hb else None
            ok_a = a is not None and a >= 0.7
            ok_b = b is not None and b >= 10
            verdicts.append(ok_a and (ok_b or b is None))
            session = median("hub-session", gzip, conns, "rps")
            c = session / nginx if session and nginx else None
            hb_text = (f"{b:.1f}x Hummingbird (>= 10x: {'met' if ok_b else 'NOT met'})" if b is not None
                       else "Hummingbird not run")
            session_text = (f"/view?session= {c:.2f}x nginx (>= 0.9x: {'met' if c >= 0.9 else 'NOT met'})"
                            if c is not None else "")
            print(f"  gzip={gzip:<3} conns={conns:<4} /view?uri= {a:.2f}x nginx (>= 0.7x: {'met' if ok_a else 'NOT met'}), "
                  f"{session_text}, {hb_text}")
    for gzip in gzips:
        p99 = median("hub", gzip, 32, "p99_ms")
        if p99 is not None:
            print(f"  gzip={gzip:<3} conns=32   p99 {p99:.2f} ms (< 5 ms: {'met' if p99 < 5 else 'NOT met'})")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "parse":
        parse(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(sys.argv[2], "--markdown" in sys.argv)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main()
