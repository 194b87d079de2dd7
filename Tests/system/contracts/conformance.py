#!/usr/bin/env python3
"""Contract conformance against a live hub-server (`make test-contracts`):

1. Tools/contracts.py --check: docs/ and the embedded copy are what the generator writes;
2. the served /openapi.json equals docs/openapi.json and passes openapi-spec-validator;
3. schemathesis (every check, positive and negative data, all phases including the stateful
   links from GET /view through Hub-Session) within a time budget, against the server
   serving CONFIG (the demo Config/ by default). Narrow settings are in schemathesis.toml.

    conformance.py --server .build/debug/hub-server [--config Config] [--max-time 200] [--max-examples 40]

Prints PASS/FAIL; exits 1 on any failure.
"""
import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HERE = os.path.dirname(os.path.abspath(__file__))
VENV_BIN = os.path.dirname(sys.executable)
sys.dont_write_bytecode = True  # no __pycache__ in Tests/system/
sys.path.insert(0, os.path.dirname(HERE))  # Tests/system
from hubserver import HubServer  # noqa: E402


def fetch(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--config", default=os.path.join(ROOT, "Config"))
    parser.add_argument("--max-time", type=int, default=200, help="schemathesis time budget in seconds")
    parser.add_argument("--max-examples", type=int, default=40)
    parser.add_argument("--seed", default=None)
    args = parser.parse_args()

    if subprocess.call([sys.executable, os.path.join(ROOT, "Tools", "contracts.py"), "--check"]) != 0:
        print("FAIL contracts: docs/ or the embedded copy is stale")
        return 1

    # An invalidation secret turns POST /invalidate on, so that its documented refusals (401 for
    # a missing or wrong signature) are what schemathesis meets, not the 404 of a route that is off.
    server = HubServer(
        args.server, args.config, log_prefix="hub-conformance-",
        environment={"HUB_INVALIDATION_SECRETS": secrets.token_hex(32)})
    base, log = server.base, server.log
    try:
        server.start()
        status, served = fetch(base + "/openapi.json")
        with open(os.path.join(ROOT, "docs", "openapi.json"), "rb") as handle:
            if status != 200 or served != handle.read():
                print("FAIL /openapi.json is not docs/openapi.json")
                return 1
        from openapi_spec_validator import validate
        validate(json.loads(served))
        print("PASS /openapi.json: the bytes of docs/openapi.json, valid OpenAPI 3.1 (openapi-spec-validator)")

        command = [
            sys.executable, os.path.join(HERE, "run_schemathesis.py"), "--config-file", os.path.join(HERE, "schemathesis.toml"),
            "run", base + "/openapi.json", "--url", base,
            "--checks", "all", "--mode", "all", "--phases", "examples,coverage,fuzzing,stateful",
            "--max-examples", str(args.max_examples), "--max-time", str(args.max_time),
            "--workers", "2", "--request-timeout", "30", "--no-color", "--generation-database", "none",
            "--report", "junit", "--report-dir", tempfile.mkdtemp(prefix="schemathesis-"),
        ]
        if args.seed:
            command += ["--seed", args.seed]
        started = time.monotonic()
        result = subprocess.call(command, cwd=tempfile.mkdtemp(prefix="schemathesis-cwd-"))  # its .schemathesis/ cache goes there
        elapsed = time.monotonic() - started
        if not server.running():
            print(f"FAIL hub-server exited during the run ({server.process.returncode}); log: {log.name}")
            return 1
        print(f"{'PASS' if result == 0 else 'FAIL'} schemathesis ({elapsed:.0f} s, exit {result}); server log: {log.name}")
        return 0 if result == 0 else 1
    except Exception as error:  # noqa: BLE001 - report and fail
        print(f"FAIL {error}; server log: {log.name}")
        return 1
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
