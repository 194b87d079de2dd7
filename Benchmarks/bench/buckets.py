#!/usr/bin/env python3
"""User time of a `perf record -g` profile of hub-server, by part of the request path.

    Benchmarks/bench/buckets.py PERF_DATA

Each user-space sample (kernel samples are counted apart) goes to the innermost frame of its
call chain that names one of the parts below (the parser, the response head, a middleware, the
router, the view endpoint, ...); runtime functions (retain, release, malloc, the concurrency
runtime) count for the part that called them. A sample with no such frame is listed by its leaf.
Used by profile.sh; the method of the fourth pass in docs/PERFORMANCE.md.
"""
import collections
import re
import subprocess
import sys

PARTS = [
    ("parse the request", r"RequestParser|RequestTarget"),
    ("write the response head", r"ResponseEncoder|HeadWriter|DateCache"),
    ("trace context", r"TraceContext"),
    ("observability (metrics, log)", r"ObservabilityMiddleware|Histogram|Counter\b|ServerMetrics"),
    ("representation (gzip, ETag, 304)", r"RepresentationMiddleware|ETag|AcceptEncoding"),
    ("CORS", r"CORSMiddleware"),
    ("error layer", r"ErrorMiddleware"),
    ("view response (render cache, headers)", r"ViewResponder|RenderCache"),
    ("session lookup and settled view", r"loadHeld|SessionStore|SettledView|sameClientRequest|openView|ChainMemo"),
    ("request bridge (ViewRequest)", r"RequestBridge|RetainedHeaders|viewRequest"),
    ("view endpoint (parameters, token)", r"getView|QueryParameters|SessionReference|SessionLookup|ClientComponents|SessionToken"),
    ("router", r"Router"),
    ("request id", r"RequestID"),
    ("request context", r"RequestContext"),
    ("dispatch (task or immediate answer)", r"Connection\.dispatch|ServerCore"),
    ("send (sendmsg, finish)", r"Connection\.send|Connection\.write|responseFinished"),
    ("read (read, events)", r"readAvailable|handleEvents"),
    ("event loop and task runtime", r"EventLoop"),
]


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    script = subprocess.run(
        ["perf", "script", "-i", sys.argv[1], "-F", "ip,sym"], capture_output=True, text=True, errors="replace"
    ).stdout
    demangled = subprocess.run(
        ["swift", "demangle", "--simplified"], input=script, capture_output=True, text=True, errors="replace"
    ).stdout or script
    compiled = [(name, re.compile(pattern)) for name, pattern in PARTS]
    parts: collections.Counter = collections.Counter()
    kernel = user = 0
    for sample in demangled.split("\n\n"):
        frames = [line.strip() for line in sample.splitlines() if line.strip()]
        if not frames:
            continue
        if frames[0].startswith("ffffffff"):
            kernel += 1
            continue
        user += 1
        for frame in frames:
            name = next((name for name, pattern in compiled if pattern.search(frame)), None)
            if name:
                parts[name] += 1
                break
        else:
            parts["other: " + frames[0].split(None, 1)[-1][:60]] += 1
    total = kernel + user
    if total == 0:
        sys.exit("no samples")
    print(f"samples: {total}, kernel {100 * kernel / total:.1f} %, user {100 * user / total:.1f} %")
    print("user time by part of the request path (share of user samples):")
    for name, count in parts.most_common(24):
        print(f"  {100 * count / max(1, user):5.1f} %  {name}")


if __name__ == "__main__":
    main()
