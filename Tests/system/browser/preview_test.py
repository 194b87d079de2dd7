#!/usr/bin/env python3
"""The browser preview in headless Chromium against the debug hub-server
serving a temporary copy of Config/ (plus one lab feature with an unknown component and model
text that tries to inject markup).

  - the page is self-contained: its Content-Security-Policy allows exactly its inline style and
    script (the SHA-256 of each, checked here), and it names no external URL;
  - /preview lists the features; /preview?uri=hub:home renders the home view's titles, goes live
    on the event stream, shows Server-Timing and the raw JSON;
  - the homeLayout toggle in the panel turns the rows into a grid of cards, and back;
  - hub:food shows the placeholder of every image that cannot load (Chromium resolves no host
    but 127.0.0.1: nothing leaves the machine), and its carousel;
  - the Hub-Locale picker lists the demo's locales (en, de): de renders hub:food from the German
    catalog (Content-Language: de in the session facts), and back to the negotiated English;
  - the lab view renders the unknown component as a labelled box with its model, and the
    injected markup as text (no script ran);
  - clicking a todo row removes it (performed); todo:clear is vetoed (not performed); an item
    added by another client arrives over the event stream without a reload, as a JSON Patch
    (patch=json-patch) the page applies, and the panel shows the bytes the patches saved;
  - explain mode (debug.explain on in the copy): hovering a todo row shows the operation that
    created it (GET /view?session=&explain=1); the header, the static operation's;
  - an edit of content/home.json shows in the open page without a reload, computed with the
    panel's toggle; removing the lab feature ends its open session and the page says so.

Usage: preview_test.py --server .build/debug/hub-server [--screenshot docs/preview.png]
(--screenshot saves the preview of hub:food, as README.md and docs/PREVIEW.md show it)
Prints PASS or FAIL (and exits 0 or 1). Waits poll with generous deadlines (WebDriverWait).
"""

import base64
import hashlib
import json
import os
import re
import sys
import tempfile
import time
import urllib.request

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.dont_write_bytecode = True  # no __pycache__ in Tests/system/
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # Tests/system
from hubserver import HubServer  # noqa: E402
from browser_run import arguments, chromium, demo_config, finish, record_error  # noqa: E402
WAIT = 30  # seconds: a deadline a loaded 2-core machine does not reach; waits end as soon as they hold
RELOAD_TARGET = 2.0  # an edit shows within 2 s (reported; failing only past WAIT)

LAB_FEATURE = {
    "id": "lab", "title": "Lab <b>bold</b>", "order": 90, "match": {"root": "hub:lab"},
    "operations": [{"kind": "static", "json": {
        "title": "Lab",
        "body": [
            {"id": "widget", "component": {"id": "acme:widget", "category": "chart"},
             "text": {"title": "Widget title"}, "custom": {"series": [1, 2, 3]}},
            {"id": "xss", "component": {"id": "default:row", "category": "row"},
             "text": {"title": "<img src=x onerror=\"window.__xss=1\">", "subtitle": "<script>window.__xss=2</script>"},
             "images": {"main": {"uri": "javascript:window.__xss=3", "placeholder": "<b>p</b>"}},
             "target": {"uri": "javascript:window.__xss=4"}},
        ],
        "overlays": [{"id": "toast", "component": {"id": "default:row", "category": "row"},
                      "text": {"title": "An overlay"}}],
    }}],
}


def fetch(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, dict(response.headers), response.read()


def sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


class PreviewTest:
    def __init__(self, driver, base, config, screenshot=False):
        self.screenshot = screenshot
        self.driver = driver
        self.base = base
        self.config = config
        self.failures = []

    def check(self, condition, what, detail=""):
        print(("  ok    " if condition else "  FAIL  ") + what + (f"  ({detail})" if detail and not condition else ""))
        if not condition:
            self.failures.append(what)
        return condition

    def until(self, condition, seconds=WAIT):
        """True once `condition(driver)` is truthy, False after `seconds`."""
        try:
            WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(condition)
            return True
        except TimeoutException:
            return False

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def canvas_text(self):
        return self.js("return document.getElementById('canvas').innerText")

    def component(self, identifier):
        return self.driver.find_elements(By.CSS_SELECTOR, f'#canvas [data-component-id="{identifier}"]')

    def open(self, uri):
        self.driver.get(self.base + "/preview?uri=" + urllib.request.quote(uri, safe=""))
        live = self.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
        return self.check(live, f"{uri}: the page opens a session and goes live on /view/events")

    # ------------------------------------------------------------------ checks

    def page_is_self_contained(self):
        status, headers, body = fetch(self.base + "/preview?uri=hub:home")
        html = body.decode()
        policy = headers.get("Content-Security-Policy", "")
        styles = re.findall(r"<style>(.*?)</style>", html, re.S)
        scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
        self.check(status == 200 and headers.get("Content-Type") == "text/html; charset=utf-8", "GET /preview?uri= is HTML")
        self.check(len(styles) == 1 and f"style-src {sha256(styles[0])}" in policy,
                   "Content-Security-Policy names the SHA-256 of the inline style", policy)
        self.check(len(scripts) == 1 and f"script-src {sha256(scripts[0])}" in policy,
                   "Content-Security-Policy names the SHA-256 of the inline script", policy)
        self.check("connect-src 'self'" in policy and "default-src 'none'" in policy, "same-origin requests only", policy)
        self.check(not re.search(r"(src|href)=\"?(https?:)?//", html) and "https://" not in html and "http://" not in html,
                   "the page names no external URL (no CDN)")

    def feature_list(self):
        self.driver.get(self.base + "/preview")
        links = self.driver.find_elements(By.CSS_SELECTOR, ".feature-list a.feature-link")
        hrefs = [link.get_attribute("href") for link in links]
        for uri in ["hub:food", "hub:home", "hub:todo", "hub:catalog"] + ([] if self.screenshot else ["hub:lab"]):
            self.check(any(href.endswith("/preview?uri=" + uri.replace(":", "%3A")) for href in hrefs),
                       f"/preview links to {uri}", hrefs)
        titles = [link.find_element(By.CSS_SELECTOR, ".feature-title").text for link in links]
        if not self.screenshot:
            self.check("Lab <b>bold</b>" in titles, "a feature title is text, not markup", titles)

    def home(self):
        if not self.open("hub:home"):
            return
        text = self.canvas_text()
        for title in ["Home", "List layout", "Recently played", "Jump back in", "Your playlists", "Podcasts"]:
            self.check(title in text, f"hub:home renders '{title}'", text)
        self.check(len(self.driver.find_elements(By.CSS_SELECTOR, "#canvas .hub-list .hub-row")) == 3,
                   "list layout: three rows in a list")
        self.check("hub:reload" in text and "hub:playlists" in text, "targets and actions are shown", text)
        timing = self.driver.find_element(By.ID, "timing").text
        self.check("static" in timing and "patch" in timing and "ms" in timing,
                   "Server-Timing shows one row per operation", timing)
        raw = json.loads(self.driver.find_element(By.ID, "raw").get_attribute("textContent"))
        self.check(raw.get("body", [{}])[1].get("id") == "recent", "the raw JSON is the view model", raw)

    def grid_toggle(self):
        toggle = Select(self.driver.find_element(By.ID, "toggle-homeLayout"))
        toggle.select_by_value("grid")
        grid = self.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#canvas .hub-grid .hub-card")) == 3
                          and "Grid layout" in self.canvas_text())
        self.check(grid, "Hub-Toggle homeLayout=grid: the rows become a grid of three cards")
        self.check(not self.driver.find_elements(By.CSS_SELECTOR, "#canvas .hub-list"), "no list is left in grid layout")
        Select(self.driver.find_element(By.ID, "toggle-homeLayout")).select_by_value("")
        back = self.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#canvas .hub-list .hub-row")) == 3
                          and "List layout" in self.canvas_text())
        self.check(back, "not forced again: the list layout is back")

    def components_header(self):
        field = self.driver.find_element(By.ID, "hub-components")
        field.send_keys("default:row\t")
        fallback = self.until(lambda d: len(self.driver.find_elements(
            By.CSS_SELECTOR, '#canvas .hub-row[data-component-id="layout"]')) == 1)
        self.check(fallback, "Hub-Components: default:row alone: the section header falls back to a row")
        self.js("window.__marker = 'kept'")
        self.component("recent")[0].click()
        performed = self.until(lambda d: d.find_element(By.ID, "result").get_attribute("data-outcome") == "performed")
        self.check(performed and self.component("layout")[0].get_attribute("class").find("hub-row") >= 0,
                   "a selection (hub:reload) with Hub-Components set: performed, the view still falls back")
        field.clear()
        field.send_keys("\t")
        back = self.until(lambda d: len(self.driver.find_elements(
            By.CSS_SELECTOR, '#canvas .hub-section[data-component-id="layout"]')) == 1)
        self.check(back and self.js("return window.__marker") == "kept",
                   "an empty Hub-Components: the section header again (a new session, same page)")

    def food(self):
        if not self.open("hub:food"):
            return
        failed = self.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#canvas .hub-image.is-failed")) >= 4)
        self.check(failed, "images that cannot load are marked failed")
        placeholders = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#canvas .hub-image.is-failed .hub-placeholder")]
        self.check("quickfood" in placeholders and "food" in placeholders, "their placeholders show", placeholders)
        cards = self.driver.find_elements(By.CSS_SELECTOR, '#canvas [data-component-id="featured"] .hub-track .hub-card')
        self.check(len(cards) == 2, "the carousel shows its two children as cards")
        self.check("Discover the tastes of the world" in self.canvas_text(), "the header's subtitle renders")

    def locale_picker(self):
        picker = Select(self.driver.find_element(By.ID, "hub-locale"))
        options = [option.get_attribute("value") for option in picker.options]
        self.check(options == ["", "en", "de"], "the Hub-Locale picker lists the supported locales", options)
        picker.select_by_value("de")
        german = self.until(lambda d: "Entdecke die Geschmäcker der Welt" in self.canvas_text()
                            and "Eingelegter Hering" in self.canvas_text())
        self.check(german, "Hub-Locale: de: hub:food renders from the German catalog", self.canvas_text())
        facts = self.until(lambda d: "Content-Language\nde\n" in d.find_element(By.ID, "session").text)
        self.check(facts, "the session facts show Content-Language: de", self.driver.find_element(By.ID, "session").text)
        Select(self.driver.find_element(By.ID, "hub-locale")).select_by_value("")
        english = self.until(lambda d: "Discover the tastes of the world" in self.canvas_text())
        self.check(english, "negotiated again (Chromium's Accept-Language): the English view is back")

    def lab(self):
        if not self.open("hub:lab"):
            return
        unknown = self.component("widget")
        self.check(len(unknown) == 1 and "unknown component" in unknown[0].text and "acme:widget" in unknown[0].text
                   and '"series"' in unknown[0].text, "an unknown component is a labelled box with its model JSON",
                   unknown[0].text if unknown else "")
        xss = self.component("xss")
        shown = xss[0].text if xss else ""
        self.check('<img src=x onerror="window.__xss=1">' in shown and "<script>" in shown,
                   "model text that looks like markup is shown as text", shown)
        self.check(self.js("return window.__xss === undefined && !document.querySelector('#canvas script, #canvas img[src^=\"javascript\"]')"),
                   "no injected script ran")
        self.check(self.js("return !document.querySelector('#canvas a[href^=\"javascript\"]')"),
                   "a javascript: target is not a link")
        self.check("An overlay" in self.js("return document.querySelector('#canvas .hub-overlays').innerText"),
                   "overlays render")

    def todo(self):
        if not self.open("hub:todo"):
            return
        self.check(len(self.component("todo-1")) == 1, "hub:todo shows its rows")
        self.component("todo-1")[0].click()
        removed = self.until(lambda d: not self.component("todo-1")
                             and d.find_element(By.ID, "result").get_attribute("data-outcome") == "performed")
        self.check(removed, "clicking a todo row posts the selection: performed, and the row is gone")
        self.check(len(self.component("todo-2")) == 1, "the other rows stay")

        self.driver.find_element(By.ID, "action-name").send_keys("todo:clear")
        self.driver.find_element(By.CSS_SELECTOR, "#action-form button[type=submit]").click()
        vetoed = self.until(lambda d: d.find_element(By.ID, "result").get_attribute("data-outcome") == "not-performed")
        self.check(vetoed and "not performed" in self.driver.find_element(By.ID, "result").text,
                   "todo:clear is vetoed: shown as not performed")
        self.check(len(self.component("todo-2")) == 1, "the vetoed action changed nothing")

        self.js("window.__marker = 'kept'")
        token = self.driver.find_element(By.ID, "session").get_attribute("data-token")
        status, _, _ = fetch(self.base + "/action", "POST",
                             {"session": token, "action": "todo:add", "custom": {"title": "Added by another client"}})
        self.check(status == 200, "another client adds an item to the same session")
        pushed = self.until(lambda d: "Added by another client" in self.canvas_text())
        self.check(pushed and self.js("return window.__marker") == "kept",
                   "the page shows it from the event stream, without a reload")
        facts = self.driver.find_element(By.ID, "session")
        patches = int(facts.get_attribute("data-patch-events") or 0)
        patch_bytes = int(facts.get_attribute("data-patch-bytes") or 0)
        view_bytes = int(facts.get_attribute("data-view-bytes") or 0)
        self.check(patches >= 1 and 0 < patch_bytes < view_bytes,
                   "the change came as a JSON Patch the page applied, smaller than the view",
                   f"{patches} patches, {patch_bytes} bytes for {view_bytes}")
        self.check("saved" in facts.text, "the panel shows the bytes the patches saved", facts.text)
        _, _, body = fetch(self.base + "/view?session=" + urllib.request.quote(token, safe=""))
        shown = self.js("return JSON.parse(document.getElementById('raw').textContent)")
        self.check(shown == json.loads(body), "the patched view is exactly the server's view")

    def explain(self):
        if not self.open("hub:todo"):
            return
        self.until(lambda d: self.component("todo-2"))
        ActionChains(self.driver).move_to_element(self.component("todo-2")[0]).perform()
        box = lambda d: d.find_element(By.ID, "explain")
        shown = self.until(lambda d: box(d).get_attribute("data-component") == "todo-2"
                           and box(d).get_attribute("data-touched") not in (None, ""))
        operations = [item.get_attribute("data-operation") for item in self.driver.find_elements(By.CSS_SELECTOR, "#explain li")]
        self.check(shown and operations == ["todoList"],
                   "hovering a todo row shows the operation that created it (explain mode)", f"{operations}")
        self.check("created" in box(self.driver).text and "swift" in box(self.driver).text,
                   "with what it did and its kind", box(self.driver).text)
        header = self.driver.find_elements(By.CSS_SELECTOR, "#canvas .hub-header[data-component-id]")
        if header:
            ActionChains(self.driver).move_to_element(header[0]).perform()
            moved = self.until(lambda d: box(d).get_attribute("data-component") == header[0].get_attribute("data-component-id"))
            operations = [item.get_attribute("data-operation") for item in self.driver.find_elements(By.CSS_SELECTOR, "#explain li")]
            self.check(moved and operations == ["static"], "the header: the static operation's", f"{operations}")

    def screenshot_pose(self):
        """The view as the picture shows it: live on /view/events, the header hovered (the explain
        panel filled), the session's facts (patches row included) in the panel. The window grows
        so that the panel shows down to the explain card."""
        self.driver.set_window_size(1440, 1280)
        header = self.driver.find_elements(By.CSS_SELECTOR, "#canvas .hub-header[data-component-id]")
        if header:
            ActionChains(self.driver).move_to_element(header[0]).perform()
            explained = self.until(lambda d: d.find_element(By.ID, "explain").get_attribute("data-component")
                                   == header[0].get_attribute("data-component-id"))
            self.check(explained, "the picture: the explain panel shows the hovered header")
        facts = self.until(lambda d: "patches" in d.find_element(By.ID, "session").text)
        self.check(facts, "the picture: the session's facts, with the patches row")
        live = self.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live")
        self.check(live, "the picture: the page says it is live")

    def live_edit(self):
        _, _, metrics = fetch(self.base + "/metrics")
        if not self.check("hub_config_reloads_total" in metrics.decode(),
                          "the server reloads its config (/metrics has hub_config_reloads_total)"):
            return
        if not self.open("hub:home"):
            return
        # Grid again: a memo hit, whose token is lazy (no session stored); the page must store the
        # session with its headers before it subscribes, or the re-run after the edit loses the toggle.
        Select(self.driver.find_element(By.ID, "toggle-homeLayout")).select_by_value("grid")
        self.until(lambda d: "Grid layout" in self.canvas_text() and d.find_element(By.ID, "live").get_attribute("data-state") == "live")
        self.js("window.__marker = 'kept'")
        path = os.path.join(self.config, "content", "home.json")
        with open(path) as f:
            content = json.load(f)
        content["body"][1]["text"]["title"] = "Recently played, edited live"
        started = time.monotonic()
        with open(path + ".tmp", "w") as f:
            json.dump(content, f)
        os.replace(path + ".tmp", path)
        shown = self.until(lambda d: "Recently played, edited live" in self.canvas_text())
        elapsed = time.monotonic() - started
        self.check(shown, "an edit of content/home.json shows in the open page")
        self.check(self.js("return window.__marker") == "kept", "without reloading the page")
        self.check("Grid layout" in self.canvas_text() and len(self.driver.find_elements(By.CSS_SELECTOR, "#canvas .hub-grid .hub-card")) == 3,
                   "the re-run kept the panel's headers (Hub-Toggle homeLayout=grid)", self.canvas_text())
        if shown:
            note = "within" if elapsed <= RELOAD_TARGET else "OVER"
            print(f"  info  the edit showed after {elapsed:.2f} s ({note} the {RELOAD_TARGET:.0f} s target)")

        if not self.open("hub:lab"):
            return
        os.remove(os.path.join(self.config, "features", "zz-lab.json"))
        ended = self.until(lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "ended")
        problem = self.driver.find_element(By.ID, "problem").text
        self.check(ended and "feature" in problem, "removing the feature ends the session: the page says so", problem)

    def console_errors(self):
        problems = [entry["message"] for entry in self.driver.get_log("browser")
                    if entry["level"] == "SEVERE" and "ERR_NAME_NOT_RESOLVED" not in entry["message"]
                    and "favicon" not in entry["message"]]
        self.check(not problems, "no script error or Content-Security-Policy violation in the console", problems)


def main():
    args = arguments(lambda parser: parser.add_argument(
        "--screenshot", help="also save the preview of hub:food as this PNG (docs/preview.png)"))
    work = tempfile.mkdtemp(prefix="hub-preview-")
    config = demo_config(work, debug={"explain": True})  # the preview's explain view
    if not args.screenshot:
        with open(os.path.join(config, "features", "zz-lab.json"), "w") as f:
            json.dump(LAB_FEATURE, f)

    failures = []
    hub = HubServer(args.server, config, log_dir=work)
    base = hub.base
    driver = None
    try:
        hub.start()
        # Only loopback: the demo's images point at hosts that must not be reached.
        driver = chromium(
            args, ["--window-size=1440,1000", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"], logging=True)
        test = PreviewTest(driver, base, config, screenshot=bool(args.screenshot))
        failures = test.failures
        test.page_is_self_contained()
        test.feature_list()
        test.home()
        test.grid_toggle()
        test.components_header()
        test.food()
        if not args.screenshot:
            test.locale_picker()
        if args.screenshot:  # the food view once its images failed (placeholders), without the lab feature
            test.screenshot_pose()
            driver.save_screenshot(args.screenshot)
            print(f"  saved {args.screenshot}")
        else:
            test.lab()
            test.todo()
            test.explain()
            test.live_edit()
        test.console_errors()
    except Exception as error:
        record_error(failures, error)
    finally:
        finish("browser preview test", failures, hub, driver, work)


if __name__ == "__main__":
    main()
