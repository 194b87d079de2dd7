"""A small HTTP/1.1 client for the replica tests (stdlib only): requests and Server-Sent Events
through a balancer on 127.0.0.1. Used by smoke.py and Tests/system/robustness/replicas_clients.py."""
import http.client
import json
import re
import socket

TOKEN_ID = re.compile(r"^[A-Za-z0-9_-]{22}(\.|$)")


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lowercased names
        self.body = body

    def header(self, name):
        return self.headers.get(name.lower())

    def json(self):
        return json.loads(self.body)

    @property
    def replica(self):
        return self.headers.get("x-hub-replica")

    def __repr__(self):
        return f"<{self.status} {self.headers.get('x-hub-replica')} {self.body[:200]!r}>"


def request(port, method, path, headers=None, body=None, timeout=30):
    """One request on a fresh connection; raises OSError / http.client errors on transport failure."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        payload = None
        if body is not None:
            payload = json.dumps(body).encode() if not isinstance(body, (bytes, str)) else body
            all_headers.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=payload, headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        return Response(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        connection.close()


def count_of(view):
    """The counter feature's count in a view (custom.count of the row 'count')."""
    for component in view.get("body", []):
        if component.get("id") == "count":
            return component.get("custom", {}).get("count")
    return None


def event_id(etag):
    """An ETag as the event id of the view it tags (no quotes)."""
    if etag and len(etag) >= 2 and etag[0] == '"' and etag[-1] == '"':
        return etag[1:-1]
    return etag


class EventStream:
    """GET /view/events, read event by event. `next_event` returns a dict with event, data, id,
    or None at the end of the stream; socket.timeout when nothing comes within `timeout`."""

    def __init__(self, port, path, headers=None, timeout=30):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        all_headers = {"Accept": "text/event-stream"}
        all_headers.update(headers or {})
        self.connection.request("GET", path, headers=all_headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}

    def set_timeout(self, seconds):
        if self.connection.sock is not None:
            self.connection.sock.settimeout(seconds)

    def next_event(self):
        event = {}
        while True:
            try:
                line = self.response.readline()
            except (http.client.IncompleteRead, ConnectionError, ValueError):
                return None
            if not line:
                return None
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if text == "":
                if "data" in event or "event" in event:
                    return event
                continue
            if text.startswith(":"):
                continue
            name, _, value = text.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                event["data"] = event.get("data", "") + value
            elif name in ("event", "id"):
                event[name] = value

    def close(self):
        try:
            self.connection.close()
        except OSError:
            pass


def is_timeout(error):
    return isinstance(error, (socket.timeout, TimeoutError))
