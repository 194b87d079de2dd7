#!/usr/bin/env python3
"""Writes the benchmark matrix's config (Benchmarks/bench/matrix.sh) into a directory: one
static view per size (about 1, 16, 64 and 256 KB of JSON as written here), each served by two
features, `hub:m<KB>-always` (the default `reload`) and `hub:m<KB>-never` (`"reload": "never"`).

  matrix_config.py DIR PORT [SIZES_KB]      (SIZES_KB: comma-separated, default 1,16,64,256)
"""
import json
import os
import sys


def row(n):
    return {
        "id": f"row-{n:04d}",
        "component": {"id": "default:row", "category": "row"},
        "text": {"title": f"Track {n:04d}", "subtitle": f"Artist {n % 97:02d} \u00b7 Album {n % 31:02d}"},
        "images": {"main": {"uri": f"https://images.example.com/cover/{n:04d}/640x640.jpg", "placeholder": "album"}},
        "target": {"uri": f"hub:track:{n:04d}", "actions": ["matrix:play"]},
        "custom": {"rank": n},
    }


def view(size_kb):
    content = {"title": f"Matrix {size_kb} KB", "body": []}
    while len(json.dumps(content, separators=(",", ":")).encode()) < size_kb * 1024 * 0.95:
        content["body"].append(row(len(content["body"])))
    return content


def main():
    directory, port = sys.argv[1], int(sys.argv[2])
    sizes = [int(s) for s in (sys.argv[3] if len(sys.argv) > 3 else "1,16,64,256").split(",")]
    os.makedirs(os.path.join(directory, "features"), exist_ok=True)
    os.makedirs(os.path.join(directory, "content"), exist_ok=True)
    with open(os.path.join(directory, "server.json"), "w") as handle:
        json.dump({"host": "127.0.0.1", "port": port, "limits": {"connections": 12000},
                   "timeouts": {"idleSeconds": 300, "drainSeconds": 10},
                   "sessions": {"max": 200000}, "gzip": {"minBytes": 1024, "level": 6},
                   "reload": {"watch": False}, "state": {"backend": "memory"},
                   "log": {"level": "warning", "format": "json"}}, handle)
    for size in sizes:
        with open(os.path.join(directory, "content", f"m{size}.json"), "w") as handle:
            json.dump(view(size), handle)
        for reload in ("always", "never"):
            feature = {"id": f"m{size}-{reload}", "title": f"Matrix {size} KB",
                       "match": {"uri": f"hub:m{size}-{reload}"},
                       "operations": [{"kind": "static", "file": f"content/m{size}.json"}]}
            if reload == "never":
                feature["reload"] = "never"
            with open(os.path.join(directory, "features", f"m{size}-{reload}.json"), "w") as handle:
                json.dump(feature, handle)


if __name__ == "__main__":
    main()
