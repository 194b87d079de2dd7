#!/usr/bin/env python3
"""Writes deploy/monitoring/hubserver-dashboard.json, the Grafana dashboard for HubServer.

    python3 deploy/monitoring/dashboard.py           # write the JSON
    python3 deploy/monitoring/dashboard.py --check   # fail when the JSON is not what this writes

One row each for traffic, latency, sessions, SSE, upstreams, reloads, caches and process. Every
query filters on the dashboard's `job` and `instance` variables and names only metrics
hub-server exports (check_metrics.py checks that against a running server). The datasource is
a variable (`datasource`, any Prometheus), so the file imports as it is.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "hubserver-dashboard.json")
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
SEL = 'job=~"$job", instance=~"$instance"'  # every selector carries it


def timeseries(title, targets, unit="short", description="", stack=False, width=8, max_value=None):
    defaults = {"unit": unit, "custom": {"fillOpacity": 10, "showPoints": "never", "lineWidth": 1}}
    if stack:
        defaults["custom"]["stacking"] = {"mode": "normal"}
    if max_value is not None:
        defaults["max"] = max_value
    return {
        "type": "timeseries", "title": title, "description": description, "datasource": DATASOURCE,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}, "tooltip": {"mode": "multi"}},
        "targets": [{"datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "refId": chr(ord("A") + i)}
                    for i, (expr, legend) in enumerate(targets)],
        "_width": width,
    }


def stat(title, expr, unit="short", description="", thresholds=None, width=4):
    steps = thresholds or [{"color": "green", "value": None}]
    return {
        "type": "stat", "title": title, "description": description, "datasource": DATASOURCE,
        "fieldConfig": {"defaults": {"unit": unit, "thresholds": {"mode": "absolute", "steps": steps}}, "overrides": []},
        "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                    "colorMode": "background", "graphMode": "none", "textMode": "auto"},
        "targets": [{"datasource": DATASOURCE, "expr": expr, "legendFormat": "", "refId": "A", "instant": True}],
        "_width": width,
    }


def quantiles(metric, by="", extra=""):
    """p50, p90 and p99 of a histogram family over 5 minutes."""
    group = f"{by}, le" if by else "le"
    legend = "{{" + by + "}} " if by else ""
    return [
        (f"histogram_quantile({q}, sum by ({group}) (rate({metric}_bucket{{{SEL}{extra}}}[5m])))", f"{legend}p{int(q * 100)}")
        for q in (0.5, 0.9, 0.99)
    ]


def rate(metric, by=None, extra=""):
    inner = f"rate({metric}{{{SEL}{extra}}}[5m])"
    return f"sum by ({by}) ({inner})" if by else f"sum({inner})"


SERVER_ERRORS = rate("hub_http_requests_total", extra=', status=~"5..", route!="/ready"')
ALL_BUT_READY = rate("hub_http_requests_total", extra=', route!="/ready"')

ROWS = [
    ("Traffic", [
        timeseries("Requests by route", [(rate("hub_http_requests_total", "route"), "{{route}}")], "reqps", stack=True),
        timeseries("Responses by status", [(rate("hub_http_requests_total", "status"), "{{status}}")], "reqps", stack=True),
        timeseries("5xx ratio (alert at 5%)", [(f"({SERVER_ERRORS} or vector(0)) / {ALL_BUT_READY}", "5xx")], "percentunit",
                   description="Server errors over all responses (/ready left out: it answers 503 while draining); "
                               "0 rather than no data while there are none."),
        timeseries("Actions by outcome", [(rate("hub_actions_total", "namespace, outcome"), "{{namespace}} {{outcome}}")], "ops"),
        timeseries("Open client connections", [(f"sum by (instance) (hub_open_connections{{{SEL}}})", "{{instance}}")]),
        stat("Requests/s", rate("hub_http_requests_total"), "reqps", width=8),
    ]),
    ("Latency", [
        timeseries("Request latency, user-facing routes",
                   quantiles("hub_http_request_duration_seconds", extra=', route=~"/view|/view/initial|/view/next-page|/action"'), "s",
                   description="GET /view, /view/initial, POST /view/next-page and /action (the alert's routes; target p99 500 ms)."),
        timeseries("p99 by route", [(
            f"histogram_quantile(0.99, sum by (route, le) (rate(hub_http_request_duration_seconds_bucket{{{SEL}}}[5m])))",
            "{{route}}")], "s", description="/view/events counts until its first response, not the stream's life."),
        timeseries("Chain run p99 by feature", [(
            f"histogram_quantile(0.99, sum by (feature, le) (rate(hub_chain_duration_seconds_bucket{{{SEL}}}[5m])))",
            "{{feature}}")], "s", description="Content loading chain runs (memo hits are not runs)."),
        timeseries("Operation p99 by feature and operation", [(
            f"histogram_quantile(0.99, sum by (feature, operation, le) (rate(hub_operation_duration_seconds_bucket{{{SEL}}}[5m])))",
            "{{feature}} {{operation}}")], "s"),
        timeseries("Operation errors", [(rate("hub_operation_errors_total", "feature, operation"), "{{feature}} {{operation}}")], "ops"),
        timeseries("Chain runs", [(rate("hub_chain_duration_seconds_count", "feature"), "{{feature}}")], "ops"),
    ]),
    ("Sessions", [
        timeseries("Live sessions and sessions.max", [
            (f"sum by (instance) (hub_sessions_active{{{SEL}}})", "{{instance}} active"),
            (f"sum by (instance) (hub_sessions_protected{{{SEL}}})", "{{instance}} protected"),
            (f"sum by (instance) (hub_sessions_max{{{SEL}}})", "{{instance}} max"),
        ]),
        timeseries("Sessions used of sessions.max (alert at 90%)", [(
            f"hub_sessions_active{{{SEL}}} / hub_sessions_max{{{SEL}}}", "{{instance}}")], "percentunit", max_value=1),
        timeseries("Sessions created and ended", [
            (rate("hub_sessions_created_total"), "created"),
            (rate("hub_sessions_ended_total", "reason"), "ended {{reason}}"),
        ], "ops"),
        timeseries("Sessions rebuilt from their token", [(rate("hub_sessions_rebuilt_total", "reason"), "{{reason}}")], "ops",
                   description="evicted, expired: this process let the session go; unknown: a restart or another replica."),
        timeseries("Session tokens refused", [(rate("hub_session_tokens_rejected_total", "reason"), "{{reason}}")], "ops",
                   description="404s that stored nothing: malformed, signature (forged, tampered, another key), expired, "
                               "revoked. A signature rise is someone guessing, or a replica with other keys."),
        timeseries("Per-client limits (429)", [(rate("hub_client_limited_total", "limit"), "{{limit}}")], "ops",
                   description="limits.sessionsPerClient and limits.sseStreamsPerClient refusals."),
    ]),
    ("SSE", [
        timeseries("Open event streams and limits.sseStreams", [
            (f"sum by (instance) (hub_sse_streams{{{SEL}}})", "{{instance}} open"),
            (f"sum by (instance) (hub_sse_streams_max{{{SEL}}})", "{{instance}} cap"),
        ], width=12),
        timeseries("Streams refused by cap", [(rate("hub_sse_streams_refused_total", "cap"), "{{cap}}")], "ops", width=12,
                   description="per_session: 429 to a client with too many streams; global: 503 stream_limit."),
    ]),
    ("Upstreams", [
        timeseries("Upstream requests and errors by kind", [
            (rate("hub_upstream_requests_total"), "requests"),
            (rate("hub_upstream_errors_total", "kind"), "error {{kind}}"),
        ], "reqps"),
        timeseries("Upstream error ratio (alert at 10%)", [(
            f'({rate("hub_upstream_errors_total")} or vector(0)) / {rate("hub_upstream_requests_total")}', "errors")],
            "percentunit"),
        timeseries("Upstream latency", quantiles("hub_upstream_request_duration_seconds"), "s",
                   description="Cache hits included."),
        timeseries("Upstream HTTP cache hits", [(rate("hub_upstream_cache_hits_total", "kind"), "{{kind}}")], "ops"),
        timeseries("Upstream connections opened", [(rate("hub_upstream_connections_opened_total"), "opened")], "ops",
                   description="New libcurl connections; a rise against requests means connections are not reused."),
        timeseries("Stale content served by feature (alert at 0.1/s)",
                   [(rate("hub_upstream_stale_served_total", "feature"), "{{feature}}")], "ops",
                   description="Remote operations answered from their last good content: the upstream failing within "
                               "staleIfErrorSeconds, or one refresh under way within staleWhileRevalidateSeconds."),
    ]),
    ("Reloads", [
        stat("Last reload", f"min(hub_config_last_reload_successful{{{SEL}}})",
             description="1: every instance's last reload succeeded; 0: one refused it and serves its previous config.",
             thresholds=[{"color": "red", "value": None}, {"color": "green", "value": 1}]),
        stat("Config age", f"time() - max(hub_config_last_reload_success_timestamp_seconds{{{SEL}}})", "s",
             description="Since the newest successful load (start-up or reload)."),
        timeseries("Reloads by result (per hour)", [(
            f"sum by (result) (increase(hub_config_reloads_total{{{SEL}}}[1h]))", "{{result}}")], width=8),
        timeseries("Re-runs a reload caused", [(rate("hub_reload_reruns_total", "mode"), "{{mode}}")], "ops", width=8,
                   description="eager: sessions followed over SSE, at reload time through reload.maxConcurrentReruns; "
                               "lazy: stale sessions on their next request. 0 for a reload that changed nothing."),
    ]),
    ("Caches", [
        timeseries("Cache bytes", [(f"sum by (cache) (hub_cache_bytes{{{SEL}}})", "{{cache}}")], "bytes"),
        timeseries("Cache entries", [(f"sum by (cache) (hub_cache_entries{{{SEL}}})", "{{cache}}")]),
        timeseries("Chain memo hit ratio", [(
            f'{rate("hub_chain_memo_hits_total")} / ({rate("hub_chain_memo_hits_total")} + '
            f'{rate("hub_chain_duration_seconds_count")})', "memo hits")], "percentunit", max_value=1,
            description="Views answered from the chain memo over all views that needed content."),
    ]),
    ("Process", [
        timeseries("CPU", [(f"rate(process_cpu_seconds_total{{{SEL}}}[5m])", "{{instance}}")], "percentunit",
                   description="Cores used (1 = one core)."),
        timeseries("Resident memory", [(f"process_resident_memory_bytes{{{SEL}}}", "{{instance}}")], "bytes"),
        timeseries("File descriptors used", [(
            f"process_open_fds{{{SEL}}} / process_max_fds{{{SEL}}}", "{{instance}}")], "percentunit"),
        timeseries("Log lines dropped", [(f"rate(hub_log_lines_dropped_total{{{SEL}}}[5m])", "{{instance}}")], "ops",
                   description="The log pipe was full, slow or closed (alert when it lasts 5 minutes)."),
        stat("Uptime", f"time() - max(process_start_time_seconds{{{SEL}}})", "s",
             description="Since the newest process started."),
    ]),
]


def variable(name, label, query):
    return {
        "name": name, "label": label, "type": "query", "datasource": DATASOURCE,
        "query": {"query": query, "refId": name}, "definition": query,
        "includeAll": True, "multi": True, "allValue": ".*", "refresh": 2, "sort": 1,
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]}, "options": [],
    }


def dashboard():
    panels, y, next_id = [], 0, 1
    for title, row_panels in ROWS:
        panels.append({"type": "row", "title": title, "id": next_id, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        next_id, y, x = next_id + 1, y + 1, 0
        for panel in row_panels:
            width = panel.pop("_width")
            if x + width > 24:
                x, y = 0, y + 8
            panel["id"] = next_id
            panel["gridPos"] = {"h": 8, "w": width, "x": x, "y": y}
            panels.append(panel)
            next_id, x = next_id + 1, x + width
        y += 8
    return {
        "title": "HubServer", "uid": "hubserver", "tags": ["hubserver"], "editable": True,
        "schemaVersion": 39, "version": 1, "graphTooltip": 1, "refresh": "30s",
        "time": {"from": "now-3h", "to": "now"}, "timepicker": {}, "timezone": "",
        "description": "HubServer /metrics: traffic, latency, sessions, SSE, upstreams, reloads, caches, process "
                       "(deploy/monitoring/, docs/DEPLOYMENT.md).",
        "annotations": {"list": []}, "links": [],
        "templating": {"list": [
            {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus",
             "current": {}, "hide": 0, "options": [], "refresh": 1, "regex": ""},
            variable("job", "job", "label_values(hub_http_requests_total, job)"),
            variable("instance", "instance", 'label_values(hub_http_requests_total{job=~"$job"}, instance)'),
        ]},
        "panels": panels,
    }


def main():
    text = json.dumps(dashboard(), indent=2) + "\n"
    if "--check" in sys.argv[1:]:
        with open(OUTPUT) as handle:
            if handle.read() != text:
                print(f"FAIL {os.path.relpath(OUTPUT)} is not what {os.path.basename(__file__)} writes: run it")
                return 1
        print(f"PASS {os.path.relpath(OUTPUT)} is what {os.path.basename(__file__)} writes")
        return 0
    with open(OUTPUT, "w") as handle:
        handle.write(text)
    print(f"wrote {os.path.relpath(OUTPUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
