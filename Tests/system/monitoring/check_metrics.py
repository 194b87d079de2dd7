#!/usr/bin/env python3
"""Every metric the dashboard and the alert rules of deploy/monitoring/ name is one hub-server exports.

    check_metrics.py --server .build/debug/hub-server [--config Config]

Starts hub-server on a free loopback port with the demo config, makes a few requests (views,
an action, a remote operation, an event stream, a 404) so the families have samples, reads
/metrics, then extracts the metric names of every query of hubserver-dashboard.json (panels and
template variables), every rule of alerts.yaml and every input series of alerts.test.yaml, and
fails listing any name /metrics does not describe. `_bucket`, `_sum` and `_count` count as their
histogram family; a histogram family named bare (no such series) fails. The dashboard's queries
are also parsed by promtool (written as recording rules to a temporary file). Prints PASS/FAIL;
exits 1 on any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MONITORING = os.path.join(ROOT, "deploy", "monitoring")
sys.dont_write_bytecode = True  # no __pycache__ in Tests/system/
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # Tests/system
from hubserver import HubServer  # noqa: E402
DASHBOARD = os.path.join(MONITORING, "hubserver-dashboard.json")
RULES = os.path.join(MONITORING, "alerts.yaml")
RULE_TESTS = os.path.join(MONITORING, "alerts.test.yaml")
ROWS = ["Traffic", "Latency", "Sessions", "SSE", "Upstreams", "Reloads", "Caches", "Process"]

# PromQL words that are not metric names: keywords and aggregation operators (which may be
# followed by `by (...)` rather than a parenthesis).
KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
    "offset", "atan2", "inf", "nan", "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
    "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio",
}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def metric_names(expr):
    """The metric names an expression selects."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)  # string literals
    text = re.sub(r"\{[^{}]*\}", " ", text)  # label matchers
    text = re.sub(r"\[[^\[\]]*\]", " ", text)  # ranges and subqueries
    text = re.sub(r"\$\{[^}]*\}|\$\w+", " ", text)  # Grafana variables outside strings
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", r"\1 ", text)  # label lists
    text = re.sub(r"\boffset\s+-?\w+", " ", text)
    names = set()
    for token in re.finditer(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = token.group(0)
        if word[0].isdigit() or word.lower() in KEYWORDS:
            continue
        if re.match(r"\s*\(", text[token.end():]):  # a function call
            continue
        names.add(word)
    return names


def self_test():
    """The extractor on the shapes the files use, so a pass means something."""
    cases = {
        'histogram_quantile(0.99, sum by (route, le) (rate(a_seconds_bucket{route=~"/view|x", job=~"$job"}[5m]))) > 0.5': {"a_seconds_bucket"},
        'sum(rate(b_total{status=~"5.."}[5m])) / sum without (kind) (rate(c_total[1h] offset 5m)) and on (job) d > bool 1e3': {"b_total", "c_total", "d"},
        "time() - max(e_seconds)": {"e_seconds"},
        'f{le="+Inf"}': {"f"},
    }
    for expr, expected in cases.items():
        assert metric_names(expr) == expected, (expr, metric_names(expr))
    histogram = {"h_seconds": "histogram", "g": "gauge"}
    assert unknown("h_seconds_bucket", histogram) is None and unknown("g", histogram) is None
    assert unknown("h_seconds", histogram) and unknown("g_count", histogram) and unknown("nope", histogram)


def dashboard_queries(dashboard):
    """(where, expression) for every panel target and every query variable."""
    queries = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            queries.append((f'panel "{panel["title"]}" {target["refId"]}', target["expr"]))
    for variable in dashboard["templating"]["list"]:
        if variable["type"] != "query":
            continue
        query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
        match = re.fullmatch(r"\s*label_values\((.*),\s*\w+\)\s*", query)
        queries.append((f'variable "{variable["name"]}"', match.group(1) if match else query))
    return queries


def dashboard_problems(dashboard):
    """Structural checks: the rows, the datasource variable on every panel, ids and layout."""
    problems = []
    rows = [panel["title"] for panel in dashboard["panels"] if panel["type"] == "row"]
    if rows != ROWS:
        problems.append(f"rows are {rows}, expected {ROWS}")
    ids = [panel["id"] for panel in dashboard["panels"]]
    if len(ids) != len(set(ids)):
        problems.append("panel ids repeat")
    if not any(v["type"] == "datasource" and v["name"] == "datasource" for v in dashboard["templating"]["list"]):
        problems.append("no datasource variable")
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        if grid["x"] + grid["w"] > 24:
            problems.append(f'panel "{panel["title"]}" is wider than the grid')
        if panel["type"] == "row":
            continue
        sources = [panel.get("datasource")] + [t.get("datasource") for t in panel.get("targets", [])]
        if any(source != {"type": "prometheus", "uid": "${datasource}"} for source in sources):
            problems.append(f'panel "{panel["title"]}" does not use the datasource variable')
        if not panel.get("targets"):
            problems.append(f'panel "{panel["title"]}" has no query')
    return problems


def rule_queries(rules, tests):
    queries = [(f'rule {rule.get("alert") or rule.get("record")}', rule["expr"])
               for group in rules["groups"] for rule in group["rules"]]
    for number, test in enumerate(tests["tests"], 1):
        for series in test.get("input_series", []):
            queries.append((f"test {number} input series", series["series"]))
    return queries


def request(base, path, method="GET", body=None, headers=None, timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    call = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    if data is not None:
        call.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(call, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def served_metrics(server, config):
    """{family: type} and the set of sample names of a fresh server after a little traffic."""
    with HubServer(server, config, log_prefix="hub-monitoring-") as hub:
        base = hub.base
        for uri in ("hub:home", "hub:catalog", "hub:nope"):
            request(base, f"/view?uri={uri}")
        status, headers, _ = request(base, "/view?uri=hub:todo")
        session = {k.lower(): v for k, v in headers.items()}.get("hub-session")
        if status != 200 or not session:
            raise RuntimeError(f"GET /view?uri=hub:todo answered {status} without a session")
        request(base, "/action", "POST", {"action": "todo:add", "custom": {"title": "monitoring"}}, {"Hub-Session": session})
        with urllib.request.urlopen(f"{base}/view/events?session={session}", timeout=10) as stream:
            stream.readline()  # the stream is open (counted) once its first line arrives
        _, _, body = request(base, "/metrics")
    families, samples = {}, set()
    for line in body.decode().splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            families[name] = kind
        elif line and not line.startswith("#"):
            samples.add(re.match(r"[A-Za-z_:][A-Za-z0-9_:]*", line).group(0))
    return families, samples


def unknown(name, families):
    """Why `name` is not an exported series, or None."""
    if name in families:
        return f"{name} is a histogram: query {name}_bucket, _sum or _count" if families[name] == "histogram" else None
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and families.get(name[: -len(suffix)]) == "histogram":
            return None
    return f"{name} is not on /metrics"


def promtool_parses(queries):
    """promtool check rules on the dashboard's queries as recording rules."""
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query_{number}", "expr": expr} for number, (_, expr) in enumerate(queries)]}]}
    with tempfile.NamedTemporaryFile("w", prefix="hub-dashboard-", suffix=".yaml", delete=False) as handle:
        yaml.safe_dump(rules, handle)
    result = subprocess.run(["promtool", "check", "rules", handle.name], capture_output=True, text=True)
    os.unlink(handle.name)
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--config", default=os.path.join(ROOT, "Config"))
    args = parser.parse_args()
    self_test()

    with open(DASHBOARD) as handle:
        dashboard = json.load(handle)
    with open(RULES) as handle:
        rules = yaml.safe_load(handle)
    with open(RULE_TESTS) as handle:
        tests = yaml.safe_load(handle)
    failures = dashboard_problems(dashboard)

    panel_queries = dashboard_queries(dashboard)
    parsed, output = promtool_parses([q for q in panel_queries if q[0].startswith("panel")])
    if not parsed:
        failures.append(f"promtool does not parse a dashboard query:\n{output}")

    families, samples = served_metrics(args.server, args.config)
    used = {}
    for where, expr in panel_queries + rule_queries(rules, tests):
        names = metric_names(expr)
        if not names:
            failures.append(f"{where}: names no metric: {expr}")
        for name in names:
            used.setdefault(name, set()).add(where.split(" ")[0])
            problem = unknown(name, families)
            if problem:
                failures.append(f"{where}: {problem}")

    for failure in failures:
        print(f"FAIL {failure}")
    if failures:
        return 1
    dashboard_names = sorted(n for n, kinds in used.items() if "panel" in kinds)
    with_samples = [n for n in dashboard_names if n in samples]
    print(f"PASS {len(panel_queries)} dashboard queries and {sum(1 for q in rule_queries(rules, tests) if q[0].startswith('rule'))} "
          f"alert rules name {len(used)} metrics, all on /metrics of a running hub-server "
          f"({len(with_samples)} of the dashboard's {len(dashboard_names)} had samples after the warm-up requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
