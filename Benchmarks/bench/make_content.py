#!/usr/bin/env python3
"""Writes the bench view's content (committed; re-run only to change the view).

The view has 60 body components and a header, about 30 KB as HubServer serializes it:
  - static: header + 20 body components (config/content/bench-static.json)
  - patch:  changes 6 of them and moves one (in config/features/bench.json)
  - remote: 40 body components from the local upstream (upstream/items.json)
Every component has text, a main image, a target, metadata, logging and custom data, as a
track row of a music app would.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def component(section, n):
    cid = f"{section}-{n:02d}"
    return {
        "id": cid,
        "component": {"id": "default:row", "category": "row"},
        "text": {
            "title": f"Track {n:02d} ({section})",
            "subtitle": f"Artist {n:02d} \u00b7 Album {n:02d}",
            "accessory": f"{3 + n % 3}:{(17 * n) % 60:02d}",
            "description": f"Description of {section} row {n:02d}",
        },
        "images": {"main": {"uri": f"https://images.example.com/cover/{section}/{n:02d}/640x640.jpg", "placeholder": "album"}},
        "target": {"uri": f"hub:bench:track:{section}:{n:02d}", "actions": ["bench:play"]},
        "metadata": {"position": n, "durationSeconds": 180 + 7 * n, "explicit": n % 4 == 0},
        "logging": {"section": section, "impression": cid, "rank": n},
        "custom": {"badge": "new" if n % 5 == 0 else "none", "accent": "#1DB954"},
    }


def main():
    static = {
        "id": "bench",
        "title": "Bench view",
        "header": {
            "id": "header",
            "component": {"id": "default:header", "category": "header"},
            "text": {"title": "Bench view", "subtitle": "60 components from static, patch and remote operations"},
            "images": {"background": {"uri": "https://images.example.com/header/bench.jpg", "placeholder": "header"}},
        },
        "body": [component("static", n) for n in range(20)],
    }
    items = [component("remote", n) for n in range(40)]
    os.makedirs(os.path.join(HERE, "config", "content"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "upstream"), exist_ok=True)
    with open(os.path.join(HERE, "config", "content", "bench-static.json"), "w") as f:
        json.dump(static, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(HERE, "upstream", "items.json"), "w") as f:
        json.dump(items, f, separators=(",", ":"), ensure_ascii=False)


if __name__ == "__main__":
    main()
