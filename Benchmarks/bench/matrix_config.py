#!/usr/bin/env python3
"""Writes the benchmark matrix's config (Benchmarks/bench/matrix.sh) into a directory: per view
size (KB of JSON as written here, any sizes) and chain shape, two features, one with the
default `reload` and one with `"reload": "never"`, matched by `hub:<chain><KB>-always` and
`hub:<chain><KB>-never`.

Chain shapes:
  static  one static operation: the whole view from a file.
  remote  a view of about the same size from three operations: static (half of the rows), a
          patch (a title set, a subtitle set, a row moved first) and a remote operation that
          fetches the other half from the local upstream (upstream.py --files UPSTREAM_DIR,
          which answers Cache-Control: max-age=86400: a cached, still fresh remote operation,
          so the chain stays memoizable).

  matrix_config.py DIR PORT [--sizes 1,16,64,256] [--chains static,remote]
                   [--upstream-port 18081] [--upstream-dir DIR/../upstream-files]
"""
import argparse
import json
import os


def row(n, prefix="row"):
    return {
        "id": f"{prefix}-{n:04d}",
        "component": {"id": "default:row", "category": "row"},
        "text": {"title": f"Track {n:04d}", "subtitle": f"Artist {n % 97:02d} \u00b7 Album {n % 31:02d}"},
        "images": {"main": {"uri": f"https://images.example.com/cover/{n:04d}/640x640.jpg", "placeholder": "album"}},
        "target": {"uri": f"hub:track:{n:04d}", "actions": ["matrix:play"]},
        "custom": {"rank": n},
    }


def encoded_size(value):
    return len(json.dumps(value, separators=(",", ":")).encode())


def view(size_kb):
    """The static view: rows until about 95 % of size_kb KB of compact JSON."""
    content = {"title": f"Matrix {size_kb} KB", "body": []}
    while encoded_size(content) < size_kb * 1024 * 0.95:
        content["body"].append(row(len(content["body"])))
    return content


def remote_parts(size_kb):
    """The remote chain's static content and upstream list: as many rows as the static view,
    the first half (at least one) in the file, the rest (at least one) from the upstream."""
    count = max(2, len(view(size_kb)["body"]))
    local = (count + 1) // 2
    content = {"title": f"Matrix {size_kb} KB, static + patch + remote", "body": [row(n) for n in range(local)]}
    remote = [row(n, "remote") for n in range(local, count)]
    return content, remote


def patch(content):
    first, last = content["body"][0]["id"], content["body"][-1]["id"]
    return {"kind": "patch",
            "set": {first: {"text": {"title": "Patched title"}, "custom": {"badge": "hot"}},
                    last: {"text": {"subtitle": "Patched subtitle"}}},
            "move": {last: 0}}


def write_json(path, value):
    with open(path, "w") as handle:
        json.dump(value, handle)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("port", type=int)
    parser.add_argument("--sizes", default="1,16,64,256")
    parser.add_argument("--chains", default="static,remote")
    parser.add_argument("--upstream-port", type=int, default=18081)
    parser.add_argument("--upstream-dir")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.replace(" ", ",").split(",") if s]
    chains = [c for c in args.chains.replace(" ", ",").split(",") if c]
    unknown = set(chains) - {"static", "remote"}
    if unknown:
        parser.error(f"unknown chain shape(s): {', '.join(sorted(unknown))} (static, remote)")
    directory = args.directory
    upstream_dir = args.upstream_dir or os.path.join(os.path.dirname(os.path.abspath(directory)), "upstream-files")
    for folder in ("features", "content"):
        os.makedirs(os.path.join(directory, folder), exist_ok=True)
    os.makedirs(upstream_dir, exist_ok=True)
    # Every benchmark client connects from 127.0.0.1, so the per-client session budget (a
    # defence against one client filling the store) is raised: the matrix's `sessions` endpoint
    # opens 64 sessions per view and reload policy, as that many clients would.
    write_json(os.path.join(directory, "server.json"),
               {"host": "127.0.0.1", "port": args.port,
                "limits": {"connections": 12000, "sessionsPerClient": {"perSecond": 100000, "burst": 100000}},
                "timeouts": {"idleSeconds": 300, "drainSeconds": 10},
                "sessions": {"max": 200000}, "gzip": {"minBytes": 1024, "level": 6},
                "upstream": {"timeoutMs": 2000, "maxConnectionsPerHost": 32},
                "reload": {"watch": False}, "state": {"backend": "memory"},
                "log": {"level": "warning", "format": "json"}})
    for size in sizes:
        for chain in chains:
            name = f"{chain}{size}"
            if chain == "static":
                write_json(os.path.join(directory, "content", f"{name}.json"), view(size))
                operations = [{"kind": "static", "file": f"content/{name}.json"}]
            else:
                content, remote = remote_parts(size)
                write_json(os.path.join(directory, "content", f"{name}.json"), content)
                write_json(os.path.join(upstream_dir, f"{name}.json"), remote)
                operations = [{"kind": "static", "file": f"content/{name}.json"}, patch(content),
                              {"kind": "remote", "url": f"http://127.0.0.1:{args.upstream_port}/files/{name}.json"}]
            for reload in ("always", "never"):
                feature = {"id": f"{name}-{reload}", "title": f"Matrix {name}",
                           "match": {"uri": f"hub:{name}-{reload}"}, "operations": operations}
                if reload == "never":
                    feature["reload"] = "never"
                write_json(os.path.join(directory, "features", f"{name}-{reload}.json"), feature)


if __name__ == "__main__":
    main()
