"""What the browser tests (cors_test.py, preview_test.py) share: their command line, a copy of
the demo Config/ with server.json changed, headless Chromium, and the teardown that stops
everything and reports PASS or FAIL."""
import argparse
import json
import os
import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                  "--disable-extensions", "--disable-background-networking"]


def arguments(add=None):
    """--server, --chromedriver and --chromium, plus what `add(parser)` adds."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/debug/hub-server"))
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    if add:
        add(parser)
    return parser.parse_args()


def demo_config(work, **settings):
    """Copies the demo Config/ into WORK/config: loopback, warnings as text, a 1 s drain, then
    `settings` over server.json's top-level keys. Returns the directory."""
    config = os.path.join(work, "config")
    shutil.copytree(os.path.join(ROOT, "Config"), config)
    path = os.path.join(config, "server.json")
    with open(path) as f:
        server = json.load(f)
    server["host"] = "127.0.0.1"
    server["log"] = {"level": "warning", "format": "text"}
    server["timeouts"]["drainSeconds"] = 1
    server.update(settings)
    with open(path, "w") as f:
        json.dump(server, f)
    return config


def chromium(args, extra_flags=(), logging=False):
    """A headless Chromium driven by chromedriver, with generous page and script timeouts."""
    options = Options()
    options.binary_location = args.chromium
    for flag in CHROMIUM_FLAGS + list(extra_flags):
        options.add_argument(flag)
    if logging:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(90)
    return driver


def record_error(failures, error):
    """A browser or driver failure is a test failure, reported plainly."""
    failures.append(f"{type(error).__name__}: {error}")
    print(f"  FAIL  {type(error).__name__}: {error}")


def finish(name, failures, hub, driver, work, stops=()):
    """Stops the driver, `stops` (callables), the hub (printing its log tail on failure), removes
    WORK, prints PASS or FAIL and exits 1 on failure."""
    if driver is not None:
        driver.quit()
    for stop in stops:
        stop()
    hub.stop()
    if failures:
        print("hub-server log:\n" + hub.log_tail())
    shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"FAIL: {name} ({len(failures)} failed)")
        sys.exit(1)
    print(f"PASS: {name}")
