"""An action on replica A reaching an SSE listener of the same session on replica B.

Opens hub:todo on A, follows the token's event stream on B, then sends COUNT actions to A one
after another (todo:add and todo:delete in turn, each after B's listener saw the previous one)
and times each from the request's start to the next event on B. Prints p50, p99 and max.

    python3 Benchmarks/state/cross_replica.py PORT_A PORT_B COUNT
"""
import http.client
import json
import sys
import threading
import time

port_a, port_b, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

connection = http.client.HTTPConnection("127.0.0.1", port_a)
connection.request("GET", "/view?uri=hub:todo")
opened = connection.getresponse()
opened.read()
token = opened.getheader("Hub-Session")
events = []
condition = threading.Condition()


def listen():
    stream = http.client.HTTPConnection("127.0.0.1", port_b, timeout=60)
    stream.request("GET", "/view/events?session=" + token)
    response = stream.getresponse()
    data = []
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            data = []
            with condition:
                events.append(time.monotonic())
                condition.notify_all()


def act(fields):
    connection.request("POST", "/action", json.dumps(dict(session=token, **fields)), {"Content-Type": "application/json"})
    answer = connection.getresponse()
    body = json.loads(answer.read())
    assert answer.status == 200 and body["performed"], (answer.status, body)
    return body["view"]


threading.Thread(target=listen, daemon=True).start()
with condition:
    condition.wait_for(lambda: len(events) > 0, timeout=30)
latencies = []
added = None
for index in range(count):
    with condition:
        before = len(events)
    started = time.monotonic()
    # Alternate add and delete, so the list stays under its cap however many actions run.
    if added is None:
        view = act({"action": "todo:add", "custom": {"title": "x%d" % index}})
        added = view["body"][-1]["id"]
    else:
        act({"action": "todo:delete", "custom": {"id": added}})
        added = None
    with condition:
        if not condition.wait_for(lambda: len(events) > before, timeout=10):
            print("FAIL: replica B's listener never saw action %d" % index)
            sys.exit(1)
        latencies.append((events[before] - started) * 1000)

latencies.sort()
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
print("A -> listener on B, %d actions: p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (count, pick(0.5), pick(0.99), latencies[-1]))
