"""A real hub-server for the Python system checks (browser/, contracts/, monitoring/), as
Tests/system/lib.sh's start_hub is for the shell ones: serving a config directory on a free
loopback port, waited for until /ready answers, its output in a log file the check can show on
failure, and stopped (SIGTERM, SIGKILL after 30 s) when the `with` block ends.

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # Tests/system
    from hubserver import HubServer, free_port
    with HubServer(binary, config) as hub:
        urllib.request.urlopen(hub.base + "/health")
"""
import os
import socket
import subprocess
import tempfile
import time
import urllib.request


def free_port():
    """A loopback port nobody listens on now (bound and released by the kernel's choice)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class HubServer:
    """`binary serve` for `config` on 127.0.0.1 (HUB_LOG_LEVEL warning unless `environment` says
    otherwise). Entering (or `start()`) starts it and waits up to `seconds` for /ready; a server that exits or
    never gets ready raises RuntimeError naming its log (in `log_dir`, default the temporary
    folder, and kept)."""

    def __init__(self, binary, config, environment=None, seconds=120, log_prefix="hub-", log_dir=None):
        self.binary, self.config, self.seconds = binary, config, seconds
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.environment = dict(os.environ, HUB_LOG_LEVEL="warning")
        self.environment.update(environment or {})
        self.environment.update(HUB_CONFIG=config, HUB_HOST="127.0.0.1", HUB_PORT=str(self.port))
        self.log = tempfile.NamedTemporaryFile(prefix=log_prefix, suffix=".log", dir=log_dir, delete=False)
        self.process = None

    def start(self):
        """Starts the server and waits for /ready; returns self."""
        self.process = subprocess.Popen([self.binary, "serve"], stdout=self.log, stderr=self.log, env=self.environment)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *_):
        self.stop()

    def _wait_ready(self):
        deadline = time.monotonic() + self.seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"hub-server exited with {self.process.returncode}; log: {self.log.name}")
            try:
                with urllib.request.urlopen(self.base + "/ready", timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"hub-server did not become ready within {self.seconds} s; log: {self.log.name}")

    def running(self):
        """Whether the server is still running."""
        return self.process is not None and self.process.poll() is None

    def log_tail(self, size=4000):
        """The end of the server's log."""
        self.log.flush()
        with open(self.log.name, encoding="utf-8", errors="replace") as handle:
            return handle.read()[-size:]

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
