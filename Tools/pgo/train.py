#!/usr/bin/env python3
"""The training run of a profile-guided build (Tools/pgo/build.sh): traffic for an instrumented
hub-server serving the demo config (Config/), so that its counters see what a deployment's
requests do, in about the proportions a deployment sees them.

It is trained on the demo config, never on the benchmark's realistic config or its views, so
that `make bench-cpu` measures shapes the profile was not made from. Most requests are the
ones that dominate a running server: `GET /view` of a held session polled by an app's client
(its seven fields) and by a bare one, `?uri=` of memoized views, identity and gzip, 304s; the
rest keeps the other paths warm: actions that write state and reschedule, event streams,
next pages, revocations, problems (400, 404, 422), health, readiness and metrics.

    Tools/pgo/train.py BASE_URL [--seconds 40] [--clients 4] [--min-requests 1000]

Loopback only; stdlib only. Exits non-zero when fewer requests were answered, more than 1% failed
(5xx, no answer), or more than 5% of those meant to succeed were refused (4xx).
"""
import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

APP_FIELDS = {
    "User-Agent": "DemoApp/2.1 (Android 15; Pixel 8)",
    "Accept": "application/json",
    "Accept-Language": "de-DE,de;q=0.9,en;q=0.7",
    "Hub-Client": "android/2.1.0",
    "Hub-Components": "default:header,default:row,default:card,default:image",
}
# Held and polled (each client opens one session of each); `?uri=` asks for the memoized ones.
VIEWS = ["hub:home", "hub:catalog", "hub:food", "hub:todo"]
MEMOIZED = ["hub:home", "hub:food"]


class Client:
    """One keep-alive connection, reopened when the server closes it."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.connection = None

    def request(self, method, target, headers=None, body=None):
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
            try:
                self.connection.request(method, target, body=body, headers=headers or {})
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return response.status, response, data
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt == 2:
                    raise

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def app_fields(gzip=False, rng=random):
    fields = dict(APP_FIELDS)
    fields["traceparent"] = "00-%032x-%016x-01" % (rng.getrandbits(128), rng.getrandbits(64))
    fields["Accept-Encoding"] = "gzip, deflate, br" if gzip else "identity"
    return fields


def open_session(client, uri, fields):
    status, response, _ = client.request("GET", "/view?uri=" + urllib.parse.quote(uri), fields)
    return response.getheader("Hub-Session") if status == 200 else None


def stream_once(host, port, token):
    """An event stream: its first event, then closed (EventSource on a page that goes away)."""
    connection = http.client.HTTPConnection(host, port, timeout=5)
    try:
        connection.request("GET", "/view/events?session=" + urllib.parse.quote(token), headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        if response.status == 200:
            response.fp.readline()
    except (http.client.HTTPException, OSError):
        pass
    finally:
        connection.close()


def worker(host, port, deadline, seed, counts, refused, failures):
    """One client's mix until `deadline`; its request count goes to `counts[seed]`, and how many
    of the requests meant to succeed were refused (4xx) to `refused[seed]`."""
    rng = random.Random(seed)
    client = Client(host, port)
    sessions = {}
    for uri in VIEWS:
        sessions[uri] = open_session(client, uri, app_fields(rng=rng))
    etags = {}
    while time.time() < deadline:
        roll = rng.random()
        uri = rng.choice(VIEWS)
        problem = False  # the problems branch asks for its 4xx on purpose
        try:
            if roll < 0.50:  # a held session polled by the app (gzip for one in three)
                token = sessions.get(uri) or open_session(client, uri, app_fields(rng=rng))
                sessions[uri] = token
                fields = app_fields(gzip=rng.random() < 0.33, rng=rng)
                if rng.random() < 0.15 and uri in etags:
                    fields["If-None-Match"] = etags[uri]
                status, response, _ = client.request("GET", "/view?session=" + urllib.parse.quote(token or "x"), fields)
                if status == 200:
                    etags[uri] = response.getheader("ETag")
            elif roll < 0.66:  # a held session polled by a bare client, the token in a header
                token = sessions.get(uri) or ""
                status, _, _ = client.request("GET", "/view", {"Hub-Session": token})
            elif roll < 0.86:  # ?uri= of a memoized view (no session stored until its token is used)
                gzip = rng.random() < 0.5
                fields = app_fields(gzip=gzip, rng=rng) if rng.random() < 0.5 else {"Accept-Encoding": "gzip" if gzip else "identity"}
                status, _, _ = client.request("GET", "/view?uri=" + rng.choice(MEMOIZED), fields)
            elif roll < 0.875:  # an action that writes state, and one that only runs
                token = sessions.get("hub:todo")
                action = "todo:add" if rng.random() < 0.7 else "todo:clear"
                body = json.dumps({"session": token, "action": action, "custom": {"title": "item %d" % rng.randrange(1000)}})
                status, _, _ = client.request("POST", "/action", {"Content-Type": "application/json"}, body)
                if rng.random() < 0.1:  # a list that stays short
                    client.request("POST", "/action", {"Content-Type": "application/json"},
                                   json.dumps({"session": token, "action": "todo:clear"}))
            elif roll < 0.89:
                status, _, _ = client.request("POST", "/view/next-page", {"Content-Type": "application/json"},
                                              json.dumps({"session": sessions.get("hub:catalog")}))
            elif roll < 0.895:
                stream_once(host, port, sessions.get(uri) or "")
                status = 200
            elif roll < 0.897:  # a session ended and a new one opened
                client.request("DELETE", "/view?session=" + urllib.parse.quote(sessions.get(uri) or "x"))
                sessions[uri] = open_session(client, uri, app_fields(rng=rng))
                status = 204
            elif roll < 0.94:  # problems: unknown feature, bad parameters, forged token, a user's view, bad body
                target = rng.choice([
                    "/view?uri=hub:nowhere", "/view", "/view?uri=hub:home&uri=hub:food",
                    "/view?session=forged.token.value", "/nothing-here", "/view?uri=hub:favorites",
                ])
                status, _, _ = client.request("GET", target, {"Accept": "application/json"})
                problem = True
                if rng.random() < 0.3:
                    client.request("POST", "/action", {"Content-Type": "application/json"}, '{"session": 1')
            else:
                status, _, _ = client.request("GET", rng.choice(["/health", "/ready", "/metrics", "/features"]))
            counts[seed] += 1
            if 400 <= status < 500 and not problem:
                refused[seed] += 1
            if status >= 500:
                failures.append(status)
        except (http.client.HTTPException, OSError) as error:
            failures.append(str(error))
            time.sleep(0.05)
    client.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url")
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--min-requests", type=int, default=1000, help="fewer answered requests fail the run")
    arguments = parser.parse_args()
    url = urllib.parse.urlsplit(arguments.base_url)
    if url.hostname not in ("127.0.0.1", "::1", "localhost"):
        sys.exit("train.py sends traffic to loopback only")
    deadline = time.time() + arguments.seconds
    counts, refused, failures, threads = [0] * arguments.clients, [0] * arguments.clients, [], []
    for index in range(arguments.clients):
        thread = threading.Thread(target=worker, args=(url.hostname, url.port, deadline, index, counts, refused, failures))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    total, refusals = sum(counts), sum(refused)
    print(f"train.py: {total} requests in {arguments.seconds:.0f} s, {refusals} refused, {len(failures)} failures",
          file=sys.stderr)
    if total < arguments.min_requests or len(failures) > total // 100:
        sys.exit(f"train.py: too few requests answered ({total}) or too many failures ({failures[:5]})")
    # A mix the server mostly refuses (a limit, a changed API) would train the refusal paths.
    if refusals > total // 20:
        sys.exit(f"train.py: {refusals} of {total} requests meant to succeed were refused (4xx)")


if __name__ == "__main__":
    main()
