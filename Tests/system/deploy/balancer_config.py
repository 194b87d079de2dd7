#!/usr/bin/env python3
"""The shipped balancer configs, rewritten for a loopback test run and nothing else.

  balancer_config.py nginx   --listen PORT --servers P1,P2,P3 --prefix DIR
  balancer_config.py haproxy --listen PORT --servers P1,P2,P3 [--check-inter-ms MS]

Prints the config. What changes, each rewrite asserted to apply exactly (a changed shipped
file fails loudly instead of testing something else):
  - the listen address (127.0.0.1:PORT) and the three replicas' ports;
  - the per-client limits, raised so far that they never trigger: every test client is the one
    address 127.0.0.1, and the limits themselves are checked by `nginx -t`/`haproxy -c` of the
    unchanged files;
  - nginx: temp paths and logs under the prefix, an access log with the upstream address and
    timings, and `X-Hub-Replica: $upstream_addr` on answers (which replica served it);
  - haproxy: `X-Hub-Replica: <server name>` on answers, a global maxconn the test machine's
    open-file limit allows, and optionally a shorter check interval.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SHIPPED_PORTS = ["8081", "8082", "8083"]


def replace(text, old, new, count=1):
    found = text.count(old)
    if found != count:
        sys.exit(f"balancer_config.py: expected {count} x {old!r} in the shipped config, found {found}")
    return text.replace(old, new)


def nginx(args, ports):
    text = open(os.path.join(ROOT, "deploy", "nginx", "hubserver.conf")).read()
    text = replace(text, "listen 80;", f"listen 127.0.0.1:{args.listen};")
    for shipped, port in zip(SHIPPED_PORTS, ports):
        text = replace(text, f"server 127.0.0.1:{shipped} ", f"server 127.0.0.1:{port} ")
    text = replace(text, "rate=20r/s", "rate=100000r/s")
    text = replace(text, "rate=1r/s", "rate=100000r/s")
    text = replace(text, "limit_conn hub_conn 100;", "limit_conn hub_conn 60000;")
    text = replace(text, "worker_processes auto;", "worker_processes 2;")
    prefix = args.prefix
    text = replace(text, "http {\n", "http {\n"
                   f"    client_body_temp_path {prefix}/tmp/body; proxy_temp_path {prefix}/tmp/proxy;\n"
                   f"    fastcgi_temp_path {prefix}/tmp/fastcgi; uwsgi_temp_path {prefix}/tmp/uwsgi; scgi_temp_path {prefix}/tmp/scgi;\n"
                   "    log_format hubtest '$msec $request_time $status \"$upstream_addr\" \"$upstream_status\" "
                   "$request_method $uri $hub_session_id';\n"
                   f"    access_log {prefix}/logs/access.log hubtest;\n")
    text = replace(text, "        server_name _;\n", "        server_name _;\n"
                   "        add_header X-Hub-Replica $upstream_addr always;\n")
    return text


def haproxy(args, ports):
    text = open(os.path.join(ROOT, "deploy", "haproxy", "haproxy.cfg")).read()
    text = replace(text, "bind :80", f"bind 127.0.0.1:{args.listen}")
    text = replace(text, "    maxconn 20000 ", "    maxconn 4000 ")
    for shipped, port in zip(SHIPPED_PORTS, ports):
        text = replace(text, f" 127.0.0.1:{shipped} id ", f" 127.0.0.1:{port} id ")
    text = replace(text, "sc0_conn_cur gt 100\n", "sc0_conn_cur gt 100000\n")
    text = replace(text, "sc0_http_req_rate gt 400\n", "sc0_http_req_rate gt 10000000\n")
    text = replace(text, "sc1_http_req_rate(streams) gt 10\n", "sc1_http_req_rate(streams) gt 10000000\n")
    text = replace(text, "    balance hash var(txn.hub_session_id)\n",
                   "    balance hash var(txn.hub_session_id)\n    http-after-response set-header X-Hub-Replica %[srv_name]\n")
    if args.check_inter_ms:
        text = replace(text, "check inter 2s", f"check inter {args.check_inter_ms}ms")
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["nginx", "haproxy"])
    parser.add_argument("--listen", required=True)
    parser.add_argument("--servers", required=True, help="three ports, comma-separated")
    parser.add_argument("--prefix", default="/tmp")
    parser.add_argument("--check-inter-ms", type=int)
    args = parser.parse_args()
    ports = args.servers.split(",")
    if len(ports) != 3:
        sys.exit("balancer_config.py: give exactly three ports")
    sys.stdout.write(nginx(args, ports) if args.kind == "nginx" else haproxy(args, ports))


if __name__ == "__main__":
    main()
