#!/usr/bin/env python3
"""Cross-origin test in a real browser: headless Chromium loads a page from one
loopback origin that uses HubServer's API on another.

Allowed origin (listed in server.json "cors"):
  - fetch GET /view?uri=hub:todo reads Hub-Session and ETag (exposed headers);
  - fetch POST /action with a JSON body passes its preflight and gets the new view;
  - an EventSource on /view/events receives the view.
Disallowed origin (another port, not listed): the browser blocks the fetch (TypeError),
the JSON POST (its preflight fails) and the EventSource.
The server's metrics then confirm that the preflight was answered (OPTIONS /action 204)
and that the disallowed requests were counted (hub_cors_rejected_total).

Usage: cors_test.py --server .build/debug/hub-server
Prints PASS or FAIL (and exits 0 or 1). No timing assertions: waits are generous.
"""

import os
import sys
import tempfile
import threading
import urllib.request
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


sys.dont_write_bytecode = True  # no __pycache__ in Tests/system/
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # Tests/system
from hubserver import HubServer, free_port  # noqa: E402
from browser_run import arguments, chromium, demo_config, finish, record_error  # noqa: E402

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>HubServer CORS test</title></head>
<body><p>HubServer cross-origin test page</p></body></html>
"""

# Runs in the page (execute_async_script): the three uses of the API, each result recorded.
SCRIPT = r"""
const api = arguments[0];
const done = arguments[arguments.length - 1];
const out = {};
function withTimeout(promise, ms, label) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve({ timeout: label }), ms))]);
}
(async () => {
  try {
    const r = await fetch(api + "/view?uri=hub:todo");
    out.viewStatus = r.status;
    out.session = r.headers.get("Hub-Session");
    out.etag = r.headers.get("ETag");
    out.viewTitle = (await r.json()).header?.text?.title ?? null;
  } catch (e) { out.viewError = e.name + ": " + e.message; }
  try {
    const a = await fetch(api + "/action", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Hub-Client": "web/1.0", "Hub-Session": out.session || "none" },
      body: JSON.stringify({ uri: "hub:todo", action: "todo:add", custom: { title: "Added from a browser" } }) });
    out.actionStatus = a.status;
    out.actionSession = a.headers.get("Hub-Session");
    const body = await a.json();
    out.performed = body.performed;
    out.actionHasItem = JSON.stringify(body.view || {}).includes("Added from a browser");
  } catch (e) { out.actionError = e.name + ": " + e.message; }
  out.event = await withTimeout(new Promise((resolve) => {
    let es;
    try {
      es = new EventSource(api + "/view/events?session=" + encodeURIComponent(out.session || "none"));
    } catch (e) { resolve({ error: e.name + ": " + e.message }); return; }
    es.addEventListener("view", (e) => {
      es.close();
      resolve({ received: true, hasItem: e.data.includes("Added from a browser") });
    });
    es.onerror = () => { es.close(); resolve({ error: "EventSource error, readyState " + es.readyState }); };
  }), 45000, "no event in 45 s");
  done(out);
})();
"""


def serve_page(directory, port):
    handler = partial(QuietHandler, directory=directory)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def metric(text, line_prefix):
    for line in text.splitlines():
        if line.startswith(line_prefix + " "):
            return float(line.split(" ")[-1])
    return 0.0


def main():
    args = arguments()
    work = tempfile.mkdtemp(prefix="hub-cors-")
    page_port, other_port = free_port(), free_port()
    allowed_origin = f"http://127.0.0.1:{page_port}"
    other_origin = f"http://127.0.0.1:{other_port}"
    config = demo_config(work, cors={"origins": [allowed_origin], "maxAgeSeconds": 60})

    pages = os.path.join(work, "pages")
    os.makedirs(pages)
    with open(os.path.join(pages, "index.html"), "w") as f:
        f.write(PAGE)

    failures = []

    def check(condition, what, detail=""):
        print(("  ok    " if condition else "  FAIL  ") + what + (f"  ({detail})" if detail and not condition else ""))
        if not condition:
            failures.append(what)

    hub = HubServer(args.server, config, log_dir=work)
    api = hub.base
    page_server = serve_page(pages, page_port)
    other_server = serve_page(pages, other_port)
    driver = None
    try:
        hub.start()
        driver = chromium(args)

        print(f"allowed origin {allowed_origin} -> API {api}")
        driver.get(allowed_origin + "/index.html")
        result = driver.execute_async_script(SCRIPT, api)
        check(result.get("viewStatus") == 200, "fetch GET /view?uri=hub:todo answers 200", result)
        check(bool(result.get("session")), "the script reads Hub-Session", result)
        check(bool(result.get("etag")), "the script reads ETag", result)
        check(result.get("viewTitle") == "Todo", "the view JSON is readable", result)
        check(result.get("actionStatus") == 200, "JSON POST /action passes its preflight and answers 200", result)
        check(result.get("actionSession") == result.get("session"),
              "the Hub-Session request header (allowed by the preflight) names the session of the action", result)
        check(result.get("performed") is True and result.get("actionHasItem") is True,
              "the action's response carries the new view", result)
        event = result.get("event") or {}
        check(event.get("received") is True and event.get("hasItem") is True,
              "EventSource on /view/events receives the view", result)

        print(f"disallowed origin {other_origin} -> API {api}")
        driver.get(other_origin + "/index.html")
        blocked = driver.execute_async_script(SCRIPT, api)
        check("TypeError" in (blocked.get("viewError") or "") and "viewStatus" not in blocked,
              "fetch GET /view is blocked by the browser (TypeError)", blocked)
        check("TypeError" in (blocked.get("actionError") or "") and "actionStatus" not in blocked,
              "JSON POST /action is blocked (its preflight fails)", blocked)
        check("error" in (blocked.get("event") or {}), "EventSource is blocked", blocked)

        with urllib.request.urlopen(api + "/metrics", timeout=10) as response:
            metrics = response.read().decode()
        check(metric(metrics, 'hub_http_requests_total{route="/action",method="OPTIONS",status="204"}') >= 1,
              "the server answered the browser's preflight with 204")
        check(metric(metrics, 'hub_cors_rejected_total{kind="preflight"}') >= 1,
              "the disallowed preflight counts in hub_cors_rejected_total")
        check(metric(metrics, 'hub_cors_rejected_total{kind="request"}') >= 1,
              "the disallowed requests count in hub_cors_rejected_total")
    except Exception as error:
        record_error(failures, error)
    finally:
        finish("browser CORS test", failures, hub, driver, work, stops=[page_server.shutdown, other_server.shutdown])


if __name__ == "__main__":
    main()
