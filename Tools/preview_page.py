"""The browser preview's page (GET /preview), a data file embedded in the binary: called by Tools/contracts.py.

Sources, edited by hand, in Sources/HubServer/Preview/Page/ (excluded from the SwiftPM target):
  preview.html          the page, with /* hub:style */, /* hub:script */ and <!-- hub:features -->
  preview.css           inlined at /* hub:style */
  preview-render.js     the view model as DOM          } inlined, in this order, in one
  preview-session.js    requests, session, stream      } strict-mode function at
  preview-panel.js      what it shows, the panel       } /* hub:script */

Output: Sources/HubServer/Resources/preview.html, the whole page with <!-- hub:features --> where
the server puts the feature list, embedded in the binary by SwiftPM (Package.swift). The server
sends a Content-Security-Policy that allows exactly its inline style and script (by SHA-256,
computed as content_security_policy() does here), same-origin requests and http(s) images.
"""
import base64
import hashlib
import os
import re

PAGE_DIR = "Sources/HubServer/Preview/Page"
OUTPUT = "Sources/HubServer/Resources/preview.html"
FEATURES_MARKER = "<!-- hub:features -->\n"


def _read(root, name):
    with open(os.path.join(root, PAGE_DIR, name), encoding="utf-8") as handle:
        return handle.read()


def page(root):
    """The whole page, with the marker where the feature list goes."""
    html = _read(root, "preview.html")
    css = _read(root, "preview.css")
    script = ('(() => {\n"use strict";\n\n' + "\n".join(
        _read(root, name) for name in ("preview-render.js", "preview-session.js", "preview-panel.js")) + "})();")
    for text, closing in ((css, "</style"), (script, "</script")):
        assert closing not in text.lower(), f"{closing} inside the inlined text"
    assert html.count("/* hub:style */") == 1 and html.count("/* hub:script */") == 1
    assert html.count(FEATURES_MARKER) == 1
    html = html.replace("/* hub:style */\n", css).replace("/* hub:script */\n", script + "\n")
    assert "http://" not in html and "https://" not in html and "//cdn" not in html, "the page must name no external URL"
    return html


def _hash(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(html):
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert len(styles) == 1 and len(scripts) == 1
    return ("default-src 'none'; script-src " + _hash(scripts[0]) + "; style-src " + _hash(styles[0])
            + "; img-src http: https: data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
            "frame-ancestors 'none'")


def outputs(root):
    """The assembled page, a data file the HubServer target embeds (Package.swift). The server
    computes the Content-Security-Policy's hashes from this file's inline style and script."""
    html = page(root)
    content_security_policy(html)  # exactly one inline style and one inline script
    return {OUTPUT: html}
