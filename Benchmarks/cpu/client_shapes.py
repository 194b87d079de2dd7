"""The client shapes of `make bench-cpu` (bench_cpu.py): what each sends on GET /view.

  app   what a mobile app's HTTP client sends besides Host: one app, the same fields on every
        request (a connection that asks again and again, as a load generator does);
  apps  the same fields from many apps in turn: every request names another of CLIENTS client
        ids (Hub-Client-Id, the header the realistic config's rollouts bucket on), so
        consecutive requests on a connection are other clients', as a server's traffic is
        (`?uri=` only: a held session belongs to one client). The ids are chosen so that every
        one of them gets the same bytes (the same rollout buckets), which the file servers send;
  traced  the app's fields with a new `traceparent` on every request (a new trace id and span
        id, the same length), as an app with tracing on sends: no two requests of a connection
        are byte for byte the same;
  wrk   wrk's bare request (Host only).
"""
import json

# What a mobile app's HTTP client sends on GET /view besides Host (the app shape); the gzip
# cells add Accept-Encoding: gzip, deflate, br (the wrk shape: Accept-Encoding: gzip alone).
APP_HEADERS = [
    ("User-Agent", "HubApp/4.2.0 (iPhone15,3; iOS 18.1; Scale/3.00)"),
    ("Accept", "application/json"),
    ("Accept-Language", "en-GB,en;q=0.9,sv;q=0.5"),
    ("Hub-Client", "ios/4.2.0"),
    ("Hub-Components", "default:header,default:row,default:card,default:carousel,default:banner"),
    ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
]
CLIENT_ID_HEADER = "Hub-Client-Id"
CLIENTS = 64
SHAPES = ("app", "apps", "traced", "wrk")


def headers_for(shape, encoding):
    """The fixed fields of `shape` asking for `encoding` (apps: without its client id)."""
    if shape not in SHAPES:
        raise SystemExit(f"unknown client shape {shape!r} (BENCH_CLIENTS: {' '.join(SHAPES)})")
    bare = shape == "wrk"
    headers = [] if bare else list(APP_HEADERS)
    if encoding == "gzip":
        headers.append(("Accept-Encoding", "gzip" if bare else "gzip, deflate, br"))
    elif not bare:
        headers.append(("Accept-Encoding", "identity"))
    return headers


def client_ids(get, target, headers):
    """CLIENTS client ids whose answers to `target` are byte for byte the answer without one (the
    same rollout bucket of every toggle): `get(target, headers)` returns (status, headers, body)."""
    status, _, first = get(target, headers)
    if status != 200:
        raise SystemExit(f"{target}: status {status}")
    ids = []
    for number in range(CLIENTS * 100):
        client = f"client-{number:05d}"
        status, _, body = get(target, headers + [(CLIENT_ID_HEADER, client)])
        if status != 200:
            raise SystemExit(f"{target} as {client}: status {status}")
        if body == first:
            ids.append(client)
            if len(ids) == CLIENTS:
                return ids
    raise SystemExit(f"fewer than {CLIENTS} of {CLIENTS * 100} client ids share one answer to {target}")


def lua_script(path, headers, ids=None, traced=False):
    """A wrk script sending `headers`; with `ids` a different client id on every request, and
    `traced` a new `traceparent` on every request."""
    with open(path, "w") as f:
        for name, value in headers:
            f.write(f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}\n")
        if ids or traced:
            f.write("local n = 0\n")
            if ids:
                f.write("local ids = {" + ", ".join(json.dumps(i) for i in ids) + "}\n")
            f.write("request = function()\n"
                    "  n = n + 1\n")
            if ids:
                f.write(f"  wrk.headers[{json.dumps(CLIENT_ID_HEADER)}] = ids[n % #ids + 1]\n")
            if traced:
                f.write('  wrk.headers["traceparent"] = string.format("00-%032x-%016x-01", n, n)\n')
            f.write("  return wrk.format(nil)\n"
                    "end\n")
    return path
