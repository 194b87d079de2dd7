#!/usr/bin/env python3
"""CPU per request: HubServer against static servers sending the same bytes (Benchmarks/cpu/run.sh,
`make bench-cpu`; docs/PERFORMANCE.md "CPU per request against nginx").

  bench_cpu.py --hub URL --hub-pid PID --work DIR

run.sh starts hub-server (Benchmarks/configs/realistic) and the benchmark upstream; this script
  1. asks HubServer for each measured view (hub:bench:<KB>k) as each client shape (client_shapes.py:
     `app`, what a mobile app sends; `apps`, that from 64 apps in turn; `traced`, the app with a
     new traceparent on every request; `wrk`, wrk's bare request)
     and encoding (identity, gzip) asks for it, and
     writes those exact bytes to files (DIR/html/<shape>/view-<KB>k.json and .json.gz, the .gz
     only when HubServer gzips: a view under gzip.minBytes is sent as is by every server);
  2. opens a held session per view and shape (?session= cells), checks it answers the same bytes;
  3. starts nginx (2 workers, open_file_cache, gzip_static), a second identical nginx (the A/A
     floor: how far two identical servers land apart in these rounds) and h2o (2 threads,
     file.send-compressed), and checks each answers every cell's request with HubServer's bytes;
  4. per cell, ROUNDS rounds, each a `wrk --latency` run of SECONDS per server, the servers'
     order rotating every round; per run the server's own CPU (utime+stime from /proc/PID/stat of
     the process and every descendant, e.g. nginx's workers, plus the children it reaped) over
     the requests wrk completed, how often its threads slept waiting for work (voluntary
     context switches per request, /proc/PID/task/*/status) and how many of its threads did the
     work (each at least a tenth of it: 1 when one event loop or nginx worker held every
     connection, 2 when they were split). Prints medians as a markdown table, then nginx over
     HubServer round by round, apart for the rounds where both held their connections alike and
     those where they did not. A cell in which a server's answers failed (a non-2xx status, a
     connection error) is not a reading: its ratio says so, and the footer names it.

Environment (defaults in brackets; BENCH_QUICK=1 changes the defaults to a 2-minute smoke run):
  BENCH_SIZES [1 8 16 28 40 128] (28: most of its body from a cached remote operation)
  BENCH_ENDPOINTS [uri session] BENCH_ENCODINGS [identity gzip]
  BENCH_CLIENTS [app wrk] (or apps, traced; apps: ?uri= only) BENCH_CONNS [32 512]            BENCH_THREADS [1] (add 2 for -t2)
  BENCH_ROUNDS [3]              BENCH_SECONDS [3]
  BENCH_SERVERS [hub nginx nginx-b h2o]   BENCH_OUT (also write the table to this file)
Only 127.0.0.1; every process started here is stopped by PID at the end.
"""
import argparse
import http.client
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

from client_shapes import client_ids, headers_for, lua_script
from proc_stats import busy_threads, tree_pids, usage

HZ = os.sysconf("SC_CLK_TCK")
QUICK = os.environ.get("BENCH_QUICK") == "1"

def env_list(name, default, quick):
    return os.environ.get(name, quick if QUICK else default).split()


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def get(port, target, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", target, headers=dict(headers))
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


def ms(value):
    number = float(re.match(r"[\d.]+", value).group())
    if value.endswith("us"):
        return number / 1000
    if value.endswith("ms"):
        return number
    if value.endswith("s"):
        return number * 1000
    return number


def wrk_run(url, root_pid, threads, conns, seconds, script):
    args = ["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    if script:
        args += ["-s", script]
    before = usage(root_pid)
    out = subprocess.run(args + [url], capture_output=True, text=True, timeout=seconds + 30).stdout
    after = usage(root_pid)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: .*", out)
    if bad or (errors and "timeout 0" not in errors.group(0)):
        log(f"  {url}: {bad.group(0) if bad else ''} {errors.group(0) if errors else ''}")
    per_request = 1e6 / HZ / max(requests, 1)
    user, system = (after[0] - before[0]) * per_request, (after[1] - before[1]) * per_request
    # Answers that were not the cell's: non-2xx statuses, and connections that failed to open,
    # read or write (a timeout is slow, not wrong). A cell with any is not a reading.
    failed = int(bad.group(1)) if bad else 0
    if errors:
        failed += sum(int(n) for kind, n in re.findall(r"(connect|read|write) (\d+)", errors.group(0)))
    return {"rate": rate if not bad else 0.0, "p99": ms(p99.group(1)) if p99 else float("nan"), "failed": failed,
            "cpu": user + system, "user": user, "sys": system, "waits": (after[2] - before[2]) / max(requests, 1),
            "busy": busy_threads(before[3], after[3])}


def nginx_conf(prefix, port, html):
    os.makedirs(f"{prefix}/logs", exist_ok=True)
    os.makedirs(f"{prefix}/tmp", exist_ok=True)
    with open(f"{prefix}/nginx.conf", "w") as f:
        f.write(f"""worker_processes 2;
worker_rlimit_nofile 16384;
error_log {prefix}/logs/error.log warn;
pid {prefix}/logs/nginx.pid;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 300;
    keepalive_requests 1000000;
    open_file_cache max=64 inactive=60s;
    open_file_cache_valid 60s;
    types {{ application/json json; }}
    default_type application/json;
    client_body_temp_path {prefix}/tmp; proxy_temp_path {prefix}/tmp; fastcgi_temp_path {prefix}/tmp;
    uwsgi_temp_path {prefix}/tmp; scgi_temp_path {prefix}/tmp;
    server {{
        listen 127.0.0.1:{port};
        root {html};
        gzip_static on;
        gzip_vary on;
    }}
}}
""")
    return ["nginx", "-p", prefix, "-c", f"{prefix}/nginx.conf", "-g", "daemon off;"]


def h2o_conf(prefix, port, html):
    os.makedirs(prefix, exist_ok=True)
    with open(f"{prefix}/h2o.conf", "w") as f:
        f.write(f"""num-threads: 2
max-connections: 8192
error-log: {prefix}/error.log
http1-request-timeout: 300
hosts:
  "127.0.0.1:{port}":
    listen:
      host: 127.0.0.1
      port: {port}
    paths:
      "/":
        file.dir: {html}
        file.send-compressed: ON
""")
    return ["h2o", "-c", f"{prefix}/h2o.conf"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hub", required=True)
    parser.add_argument("--hub-pid", type=int, required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    hub_port = int(args.hub.rsplit(":", 1)[1])
    sizes = env_list("BENCH_SIZES", "1 8 16 28 40 128", "1 16 128")
    endpoints = env_list("BENCH_ENDPOINTS", "uri session", "uri session")
    encodings = env_list("BENCH_ENCODINGS", "identity gzip", "identity gzip")
    shapes = env_list("BENCH_CLIENTS", "app wrk", "app")
    conns_list = [int(c) for c in env_list("BENCH_CONNS", "32 512", "32")]
    threads_list = [int(t) for t in env_list("BENCH_THREADS", "1", "1")]
    rounds = int(os.environ.get("BENCH_ROUNDS", "2" if QUICK else "3"))
    seconds = int(os.environ.get("BENCH_SECONDS", "1" if QUICK else "3"))
    wanted = env_list("BENCH_SERVERS", "hub nginx nginx-b h2o", "hub nginx nginx-b h2o")
    if shutil.which("h2o") is None and "h2o" in wanted:
        log("h2o is not installed: its columns stay empty")
        wanted.remove("h2o")

    os.chmod(args.work, 0o755)  # nginx's workers and h2o's threads run as nobody under root
    html = os.path.join(args.work, "html")
    scripts = os.path.join(args.work, "lua")
    os.makedirs(scripts, exist_ok=True)
    # 1-2. HubServer's bytes per view, shape and encoding; a held session per view and shape.
    expected, sessions, script = {}, {}, {}
    ids = {}  # the apps shape's client ids: one rollout bucket, the same bytes
    for shape in shapes:
        os.makedirs(os.path.join(html, shape), exist_ok=True)
        if shape == "apps":
            ids[shape] = client_ids(lambda target, headers: get(hub_port, target, headers),
                                    f"/view?uri=hub:bench:{sizes[0]}k", headers_for(shape, encodings[0]))
        for encoding in encodings:
            headers = headers_for(shape, encoding)
            script[shape, encoding] = (lua_script(os.path.join(scripts, f"{shape}-{encoding}.lua"), headers, ids.get(shape),
                                                   traced=shape == "traced")
                                       if headers else None)
        for kb in sizes:
            name = f"view-{kb}k"
            plain = None
            for encoding in encodings:
                headers = headers_for(shape, encoding)
                status, response_headers, body = get(hub_port, f"/view?uri=hub:bench:{kb}k", headers)
                again = get(hub_port, f"/view?uri=hub:bench:{kb}k", headers)[2]
                if status != 200 or body != again:
                    raise SystemExit(f"{name} ({shape}, {encoding}): status {status}, stable {body == again}")
                for client in ids.get(shape, []):
                    if get(hub_port, f"/view?uri=hub:bench:{kb}k", headers + [("Hub-Client-Id", client)])[2] != body:
                        raise SystemExit(f"{name} ({shape}, {encoding}): {client} gets other bytes")
                gzipped = response_headers.get("content-encoding") == "gzip"
                path = os.path.join(html, shape, name + (".json.gz" if gzipped else ".json"))
                if not gzipped and os.path.exists(path) and open(path, "rb").read() != body:
                    raise SystemExit(f"{name} ({shape}): identity bytes differ between encodings")
                with open(path, "wb") as f:
                    f.write(body)
                expected[shape, kb, encoding] = body
                if encoding == "identity":
                    plain = body
            if plain is None:  # gzip only: the identity file nginx needs beside the .gz
                plain = get(hub_port, f"/view?uri=hub:bench:{kb}k", headers_for(shape, "identity"))[2]
                with open(os.path.join(html, shape, name + ".json"), "wb") as f:
                    f.write(plain)
            if "session" in endpoints and shape != "apps":
                headers = headers_for(shape, encodings[0])
                status, response_headers, _ = get(hub_port, f"/view?uri=hub:bench:{kb}k", headers)
                token = response_headers.get("hub-session")
                if not token:
                    raise SystemExit(f"{name} ({shape}): no Hub-Session (status {status})")
                sessions[shape, kb] = token
            log(f"{name} ({shape}): {len(plain)} bytes" + (f", gzip {len(expected[shape, kb, 'gzip'])}"
                                                          if "gzip" in encodings else ""))
    os.system(f"chmod -R a+rX {html}")

    # 3. The static servers.
    started = []

    def start(name, command):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(os.path.join(args.work, name + ".log"), "w"),
                                start_new_session=True)
        started.append(proc)
        return proc

    servers = {}  # name -> (port, root pid)
    if "hub" in wanted:
        servers["hub"] = (hub_port, args.hub_pid)
    try:
        for name in ("nginx", "nginx-b", "h2o"):
            if name not in wanted:
                continue
            port = free_port()
            prefix = os.path.join(args.work, name)
            command = h2o_conf(prefix, port, html) if name == "h2o" else nginx_conf(prefix, port, html)
            proc = start(name, command)
            wait_port(port, proc)
            servers[name] = (port, proc.pid)
        time.sleep(0.5)
        for name, (port, pid) in servers.items():
            log(f"{name}: 127.0.0.1:{port}, processes {','.join(map(str, tree_pids(pid)))}")

        def target(server, shape, kb, endpoint):
            if server == "hub":
                return f"/view?session={sessions[shape, kb]}" if endpoint == "session" else f"/view?uri=hub:bench:{kb}k"
            # The same request line length as HubServer's: the query is ignored by the file servers.
            path = f"/{shape}/view-{kb}k.json"
            return path + (f"?session={sessions[shape, kb]}" if endpoint == "session" else f"?uri=hub:bench:{kb}k")

        for shape in shapes:
            for kb in sizes:
                for endpoint in endpoints:
                    if shape == "apps" and endpoint == "session":
                        continue
                    for encoding in encodings:
                        for name, (port, _) in servers.items():
                            status, _, body = get(port, target(name, shape, kb, endpoint), headers_for(shape, encoding))
                            if status != 200 or body != expected[shape, kb, encoding]:
                                raise SystemExit(f"{name} does not send HubServer's bytes for {shape} {kb} KB "
                                                 f"{endpoint} {encoding} (status {status}, {len(body)} bytes)")
        log("every server sends HubServer's exact bytes in every cell")

        # 4. The cells.
        order = list(servers)
        cells = [(kb, endpoint, encoding, shape, conns, threads) for kb in sizes for endpoint in endpoints
                 for encoding in encodings for shape in shapes for conns in conns_list for threads in threads_list
                 if not (shape == "apps" and endpoint == "session")]
        log(f"{len(cells)} cells x {len(order)} servers x {rounds} rounds x {seconds} s: about "
            f"{len(cells) * len(order) * rounds * (seconds + 0.3) / 60:.0f} min; load average {open('/proc/loadavg').read().split()[:3]}")
        columns = ["hub", "nginx", "nginx-b", "h2o"]
        title = {"hub": "HubServer", "nginx": "nginx", "nginx-b": "nginx B", "h2o": "h2o"}
        present = [c for c in columns if c in servers]
        head = (["KB", "endpoint", "encoding", "client", "conns", "wrk -t"]
                + [f"{title[c]} µs/req" for c in present]
                + (["nginx/HubServer"] if "hub" in servers and "nginx" in servers else [])
                + (["A/A nginx/nginx B"] if "nginx-b" in servers and "nginx" in servers else [])
                + [f"{title[c]} user+sys µs" for c in present if c in ("hub", "nginx")]
                + [f"{title[c]} waits/req" for c in present if c in ("hub", "nginx")]
                + (["busy threads per round, HubServer / nginx"] if "hub" in servers and "nginx" in servers else [])
                + [f"{title[c]} req/s" for c in present] + [f"{title[c]} p99 ms" for c in present])
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        print(lines[0]); print(lines[1]); sys.stdout.flush()
        # Per round, nginx's CPU per request over HubServer's, keyed by how each held its
        # connections that round: (HubServer's busy threads, nginx's).
        paired = {}
        invalid = []  # cells in which a server's answers failed (wrk_run's "failed")
        for index, (kb, endpoint, encoding, shape, conns, threads) in enumerate(cells):
            runs = {name: [] for name in servers}
            for round_number in range(rounds):
                rotation = order[round_number % len(order):] + order[:round_number % len(order)]
                for name in rotation:
                    port, pid = servers[name]
                    runs[name].append(wrk_run(f"http://127.0.0.1:{port}{target(name, shape, kb, endpoint)}", pid,
                                              threads, conns, seconds, script[shape, encoding]))
            med = {name: {k: statistics.median(r[k] for r in runs[name]) for k in ("rate", "p99", "cpu", "user", "sys", "waits")}
                   for name in servers}
            row = [str(kb), endpoint, encoding, shape, str(conns), str(threads)]
            row += [f"{med[c]['cpu']:.1f}" for c in present]
            failed = {name: sum(r["failed"] for r in runs[name]) for name in servers}
            if any(failed.values()):
                invalid.append(f"{kb} KB {endpoint} {encoding} {shape} -c{conns} -t{threads}: "
                               + ", ".join(f"{title[n]} {failed[n]}" for n in present if failed[n]))
            if "hub" in servers and "nginx" in servers:
                if failed["hub"] or failed["nginx"]:
                    row.append("not a reading (failed answers)")
                else:
                    row.append(f"**{med['nginx']['cpu'] / med['hub']['cpu']:.2f}**" if med["hub"]["cpu"] else "-")
            if "nginx-b" in servers and "nginx" in servers:
                row.append(f"{med['nginx']['cpu'] / med['nginx-b']['cpu']:.2f}" if med["nginx-b"]["cpu"] else "-")
            row += [f"{med[c]['user']:.1f}+{med[c]['sys']:.1f}" for c in present if c in ("hub", "nginx")]
            row += [f"{med[c]['waits']:.2f}" for c in present if c in ("hub", "nginx")]
            if "hub" in servers and "nginx" in servers:
                row.append(" ".join(str(r["busy"]) for r in runs["hub"]) + " / " + " ".join(str(r["busy"]) for r in runs["nginx"]))
                for hub_run, nginx_run in zip(runs["hub"], runs["nginx"]):
                    if hub_run["cpu"] and not hub_run["failed"] and not nginx_run["failed"]:
                        paired.setdefault((hub_run["busy"], nginx_run["busy"]), []).append(nginx_run["cpu"] / hub_run["cpu"])
            row += [f"{med[c]['rate']:.0f}" for c in present] + [f"{med[c]['p99']:.2f}" for c in present]
            line = "| " + " | ".join(row) + " |"
            lines.append(line)
            print(line, flush=True)
        load = open("/proc/loadavg").read().split()[:3]
        footer = (f"\n{rounds} rounds x {seconds} s per server and cell, medians; load average at the end "
                  f"{' '.join(load)}; {os.cpu_count()} cores; CPU = the server's utime+stime per completed request "
                  f"(user+sys: the two apart, medians of each); waits/req = voluntary context switches of "
                  f"all its threads per request (near 0: its busy event loop never slept).")
        if paired:
            footer += ("\nnginx/HubServer round by round, by how many threads did the work (HubServer, nginx): "
                       + "; ".join(f"{hub} and {nginx}: {len(values)} rounds, {min(values):.2f}-{max(values):.2f}, "
                                   f"median {statistics.median(values):.2f}"
                                   for (hub, nginx), values in sorted(paired.items())) + ".")
        if invalid:
            footer += ("\nNot readings (answers that failed: non-2xx statuses, connection errors; the CPU "
                       "per request of such a run is not the cell's): " + "; ".join(invalid) + ".")
        print(footer)
        if os.environ.get("BENCH_OUT"):
            with open(os.environ["BENCH_OUT"], "w") as f:
                f.write("\n".join(lines) + "\n" + footer + "\n")
    finally:
        for proc in started:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in started:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
