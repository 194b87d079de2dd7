"""Times invalidations from replica A's 202 to the new view on replica B's SSE listeners.

Serves the upstream itself (/news/<id>, `Surrogate-Key: article-<id>`, max-age=300, the title
carrying the current version), opens LISTENERS sessions of hub:news:1 on B and follows each over
SSE, then COUNT times: publishes the next version, sends A a signed {"tags":["article-1"]} and
waits until every listener of B showed that version. Prints p50, p99 and max of the time from
the 202 to each listener's new view (and from the request's start, for reference).

    python3 Benchmarks/invalidation/invalidation_latency.py --upstream-port P --a PA --b PB \
        --secret S [--count 100] [--listeners 10]
"""
import argparse
import hashlib
import hmac
import http.client
import http.server
import json
import socket
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--upstream-port", type=int, required=True)
parser.add_argument("--a", type=int, required=True)
parser.add_argument("--b", type=int, required=True)
parser.add_argument("--secret", required=True)
parser.add_argument("--count", type=int, default=100)
parser.add_argument("--listeners", type=int, default=10)
args = parser.parse_args()

version = {"n": 1}


class Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # The head and the body go out in two writes: without TCP_NODELAY the body waits for
        # the client's delayed ACK (40 ms on Linux), which would be the upstream's, not the hub's.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        item = self.path.rsplit("/", 1)[-1]
        body = json.dumps({"body": [{"id": "n", "text": {"title": "News %s v%d" % (item, version["n"])}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=300")
        self.send_header("Surrogate-Key", "news article-%s" % item)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", args.upstream_port), Upstream)
threading.Thread(target=server.serve_forever, daemon=True).start()

condition = threading.Condition()
seen = {}  # listener index -> {version: monotonic time first seen}


def listen(index, token):
    stream = http.client.HTTPConnection("127.0.0.1", args.b, timeout=120)
    stream.request("GET", "/view/events?session=" + token)
    response = stream.getresponse()
    assert response.status == 200, response.status
    data = []
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            title = json.loads("\n".join(data))["body"][0]["text"]["title"]
            data = []
            now = time.monotonic()
            with condition:
                seen.setdefault(index, {}).setdefault(int(title.rsplit("v", 1)[1]), now)
                condition.notify_all()


b = http.client.HTTPConnection("127.0.0.1", args.b)
for index in range(args.listeners):
    b.request("GET", "/view?uri=hub:news:1")
    opened = b.getresponse()
    opened.read()
    assert opened.status == 200, opened.status
    threading.Thread(target=listen, args=(index, opened.getheader("Hub-Session")), daemon=True).start()
with condition:
    assert condition.wait_for(lambda: all(1 in seen.get(i, {}) for i in range(args.listeners)), timeout=30)
# B's change feed is up before A publishes anything.
for _ in range(300):
    b.request("GET", "/ready")
    ready = json.loads(b.getresponse().read())
    if ready.get("state", {}).get("changeFeed"):
        break
    time.sleep(0.1)

a = http.client.HTTPConnection("127.0.0.1", args.a)
from_answer, from_request = [], []
for step in range(2, args.count + 2):
    version["n"] = step
    body = json.dumps({"tags": ["article-1"]})
    timestamp = str(int(time.time()))
    mac = hmac.new(args.secret.encode(), (timestamp + "." + body).encode(), hashlib.sha256).hexdigest()
    started = time.monotonic()
    a.request("POST", "/invalidate", body, {"Content-Type": "application/json", "Hub-Signature-Timestamp": timestamp,
                                             "Hub-Signature": "sha256=" + mac})
    answer = a.getresponse()
    answer.read()
    answered = time.monotonic()
    assert answer.status == 202, answer.status
    with condition:
        assert condition.wait_for(lambda: all(step in seen.get(i, {}) for i in range(args.listeners)), timeout=30), \
            "a listener of B never got version %d" % step
        for index in range(args.listeners):
            arrived = seen[index][step]
            from_answer.append(max(0.0, arrived - answered))
            from_request.append(arrived - started)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


for name, values in (("from A's 202", from_answer), ("from the request's start", from_request)):
    print("%s to the new view on B's listeners (%d invalidations x %d listeners): p50 %.1f ms, p99 %.1f ms, max %.1f ms"
          % (name, args.count, args.listeners, percentile(values, 50) * 1000, percentile(values, 99) * 1000,
             max(values) * 1000))
print("views that arrived before A's 202 reached the client (counted as 0 ms): %d" % sum(1 for v in from_answer if v == 0.0))
