"""A release hub-server for the Python benchmarks that measure its memory (Benchmarks/bench/sizing.py,
Benchmarks/memory/session_memory.py): started on a free loopback port over a temporary copy of
the demo Config/ with a server.json and extra features of the caller's, waited for on /health,
read through HTTP (/health's session count, /metrics' cache bytes) and through /proc (resident
memory), stopped and its folder removed.

    from hub_process import HubProcess, in_threads
    hub = HubProcess(binary, {"sessions": {"max": 200000}}, features={"x": {...}})
    try: ... hub.rss() ... hub.sessions() ...
    finally: hub.stop()
"""
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RELEASE_BINARY = os.path.join(ROOT, ".build", "release", "hub-server")


def free_port():
    """A loopback port nobody listens on now (bound and released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_bytes(pid):
    """The resident memory (VmRSS) of process `pid`, in bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def wait_for_port(port, seconds=30):
    """Waits until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")
            time.sleep(0.1)


class HubProcess:
    """hub-server over a copy of Config/ whose server.json is `settings` (host and port set here)
    plus `features` (file name without .json -> feature JSON)."""

    def __init__(self, binary, settings, features=None, prefix="hub-bench-"):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.config = os.path.join(self.dir, "config")
        shutil.copytree(os.path.join(ROOT, "Config"), self.config)
        with open(os.path.join(self.config, "server.json"), "w") as handle:
            json.dump(dict(settings, host="127.0.0.1", port=self.port), handle)
        for name, feature in (features or {}).items():
            with open(os.path.join(self.config, "features", f"{name}.json"), "w") as handle:
                json.dump(feature, handle)
        env = dict(os.environ, HUB_DATA_DIR=os.path.join(self.dir, "data"))
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.process = subprocess.Popen([binary, "serve", "--config", self.config], stdout=self.log,
                                        stderr=self.log, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("/health")
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop(keep=True)
                    raise RuntimeError("hub-server did not start: see " + self.log.name)
                time.sleep(0.1)

    def get(self, path):
        """(status, body) of GET path on a connection of its own."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def sessions(self):
        """The stored sessions (/health)."""
        return json.loads(self.get("/health")[1])["sessions"]

    def cache_bytes(self):
        """The caches' own bytes: the sum of every hub_cache_bytes sample of /metrics."""
        _, body = self.get("/metrics")
        return sum(int(float(line.split()[-1])) for line in body.decode().splitlines()
                   if line.startswith("hub_cache_bytes{"))

    def sessions_bytes(self):
        """hub_sessions_bytes: the sessions' own estimate of what they hold (sessions.maxBytes)."""
        _, body = self.get("/metrics")
        for line in body.decode().splitlines():
            if line.startswith("hub_sessions_bytes"):
                return int(float(line.split()[-1]))
        return 0

    def rss(self):
        """The server's resident memory in bytes."""
        return rss_bytes(self.process.pid)

    def stop(self, keep=False):
        """Stops the server (SIGTERM, then waits); removes its folder unless `keep`."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)
        self.log.close()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def in_threads(port, work, items, threads):
    """Runs work(connection, item) for every item, split over `threads` threads, each with a
    keep-alive connection of its own to 127.0.0.1:port; returns the results (in no particular
    order). Raises RuntimeError if any call failed."""
    results, errors = [], []
    lock = threading.Lock()

    def worker(chunk):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            for item in chunk:
                result = work(connection, item)
                with lock:
                    results.append(result)
        except (OSError, http.client.HTTPException, RuntimeError) as error:
            errors.append(repr(error))
        finally:
            connection.close()

    items = list(items)
    pool = [threading.Thread(target=worker, args=(items[i::threads],)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise RuntimeError(f"errors in {len(errors)} thread(s): {errors[:3]}")
    return results
