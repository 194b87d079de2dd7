#!/usr/bin/env python3
"""Writes the realistic benchmark config in this directory (committed; re-run only to change it).

    python3 generate.py                                   this directory, as committed
    python3 generate.py --out DIR --sizes "4 12" --remote-sizes "22"
                                                          the same config with other measured views
                                                          (shapes the code was not tuned on), for
                                                          BENCH_CONFIG=DIR make bench-cpu
    python3 generate.py --out DIR --sizes "2 12" --remote-sizes "22" --rearranged
                                                          and arranged otherwise: both toggles keyed
                                                          by a header the app client sends
                                                          (Hub-Client), the measured features first
                                                          in order, matched by patterns with an
                                                          exclusion, each with the promoBanner
                                                          variant too, and the remote-sized view's
                                                          upstream URL naming {header.Accept-Language}
                                                          (a retained header on the measured path)

What a deployed app's config looks like, for `make bench-cpu` (Benchmarks/cpu/run.sh):

  server.json      default settings but host and port
  toggles.json     `layout` (list / grid / carousel) rolled out 20 % grid and 10 % carousel,
                   bucketed by the Hub-Client-Id header; `promoBanner` on/off 50 %
  schemas/         `catalog`: a custom JSON schema the catalog upstream's pages are read with
  content/         the measured views' static files (1, 8, 16, 28, 40 and 128 KB) and the
                   smaller content of the other features
  upstream/        what the benchmark upstream serves (Benchmarks/bench/upstream.py --files,
                   on 127.0.0.1:18181, Cache-Control: max-age=86400): catalog pages, news
  features/        59 features: a root feature (hub:home, with an exclusion), 40 exact-URI
                   genre and editorial pages, 8 patterns with exclusions, paginated and cached
                   remote features, a feature forwarding Authorization and one with
                   {header.Accept-Language} in its URL (retained headers, not on the measured
                   path), and the measured `view-<KB>k` features last in order (hub:bench:<KB>k):
                   static file + the `layout` variant (a patch per value) + a patch; the
                   28 KB one has most of its rows from a cached remote operation between
                   the static file and the variant

The measured path is GET /view?uri=hub:bench:<KB>k (and ?session= of a session opened there).
"""
import argparse
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = HERE  # where write() writes (--out)
UPSTREAM = "http://127.0.0.1:18181"
SIZES_KB = (1, 8, 16, 40, 128)
# Views whose body comes mostly from a cached remote operation (hub:bench:<KB>k as well).
REMOTE_SIZES_KB = (28,)


def row(n, section):
    return {
        "id": f"{section}-{n:04d}",
        "component": {"id": "default:row", "category": "row"},
        "text": {"title": f"Track {n:04d}", "subtitle": f"Artist {n % 97:02d} \u00b7 Album {n % 31:02d}"},
        "images": {"main": {"uri": f"https://images.example.com/cover/{section}/{n:04d}/640x640.jpg",
                            "placeholder": "album"}},
        "target": {"uri": f"hub:track:{n:04d}", "actions": ["player:play"]},
        "custom": {"rank": n},
    }


def compact(value):
    return len(json.dumps(value, separators=(",", ":")).encode())


def sized_view(kb):
    """A header and rows until about 95 % of kb KB of compact JSON (the patches add a little)."""
    content = {
        "title": f"Bench {kb} KB",
        "header": {"id": "header", "component": {"id": "default:header", "category": "header"},
                   "text": {"title": f"Bench {kb} KB", "subtitle": "static, layout variant, patch"}},
        "body": [],
    }
    while compact(content) < kb * 1024 * 0.95:
        content["body"].append(row(len(content["body"]), f"b{kb}"))
    return content


def write(path, value, indent=None):
    full = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as handle:
        json.dump(value, handle, indent=indent, ensure_ascii=False)
        handle.write("\n")


def layout_variant(ids):
    """The `layout` toggle's variant: one patch per value, on the given component ids."""
    def patch(component, title):
        return [{"kind": "patch", "set": {**{i: {"component": component} for i in ids},
                                           "header": {"text": {"subtitle": title}}}}]
    return {"kind": "variant", "toggle": "layout", "variants": {
        "list": patch({"id": "default:row", "category": "row"}, "List layout"),
        "grid": patch({"id": "default:card", "category": "card"}, "Grid layout"),
        "carousel": patch({"id": "default:carousel", "category": "row"}, "Carousel layout")}}


def feature(fid, title, order, match, operations, **extra):
    return {"$schema": "../../../../docs/schema/feature.json", "id": fid, "title": title, "order": order,
            "match": match, **extra, "operations": operations}


def rearrange(measured):
    """--rearranged: a measured feature first in order (its size in KB), matched by a pattern with
    an exclusion, with the promoBanner variant before its last patch, and a remote operation's URL
    naming {header.Accept-Language}."""
    kb = measured["id"].split("-")[1]
    measured["order"] = int(kb[:-1])
    measured["match"] = {"pattern": f"^hub:bench:{kb}(\\?.*)?$", "exclude": [f"hub:bench:{kb}:legacy"]}
    operations = measured["operations"]
    for operation in operations:
        if operation["kind"] == "remote":
            operation["url"] += "?lang={header.Accept-Language}"
    operations.insert(len(operations) - 1, {"kind": "variant", "toggle": "promoBanner", "variants": {
        "off": [{"kind": "patch", "set": {"header": {"text": {"title": f"Bench {kb}"}}}}],
        "on": [{"kind": "patch", "set": {"promo": {"component": {"id": "default:banner", "category": "banner"},
                                                    "text": {"title": "Try Premium"}}},
                "move": {"promo": 0}}]}})


def main():
    global OUT, SIZES_KB, REMOTE_SIZES_KB
    parser = argparse.ArgumentParser(description="Writes the realistic benchmark config.")
    parser.add_argument("--out", default=HERE, help="directory to write (default: this one)")
    parser.add_argument("--sizes", help=f"measured static views in KB (default: {' '.join(map(str, SIZES_KB))})")
    parser.add_argument("--remote-sizes", help=f"measured views mostly from a cached remote operation, in KB "
                                               f"(default: {' '.join(map(str, REMOTE_SIZES_KB))})")
    parser.add_argument("--rearranged", action="store_true",
                        help="toggles keyed by Hub-Client, measured features first, matched by patterns, "
                             "with promoBanner, the remote-sized view's URL naming {header.Accept-Language}")
    arguments = parser.parse_args()
    toggle_key = "header:Hub-Client" if arguments.rearranged else "header:Hub-Client-Id"
    OUT = os.path.abspath(arguments.out)
    if arguments.sizes is not None:
        SIZES_KB = tuple(int(kb) for kb in arguments.sizes.split())
    if arguments.remote_sizes is not None:
        REMOTE_SIZES_KB = tuple(int(kb) for kb in arguments.remote_sizes.split())
    if set(SIZES_KB) & set(REMOTE_SIZES_KB):
        raise SystemExit("a size cannot be both static and remote (one hub:bench:<KB>k view each)")
    write("server.json", {"$schema": "../../../docs/schema/server.json",
                          "$comment": "Default settings but host and port (the bench overrides the port with HUB_PORT).",
                          "host": "127.0.0.1", "port": 18180}, indent=2)
    write("toggles.json", {"$schema": "../../../docs/schema/toggles.json",
                           "layout": {"values": ["list", "grid", "carousel"], "default": "list",
                                      "rollout": {"grid": 20, "carousel": 10}, "key": toggle_key},
                           "promoBanner": {"values": ["off", "on"], "default": "off",
                                           "rollout": {"on": 50}, "key": toggle_key}}, indent=2)
    write("schemas/catalog.json", {
        "$schema": "../../../../docs/schema/custom-schema.json", "id": "catalog",
        "view": {"title": ["data", "name"], "body": ["data", "items", "*"]},
        "component": {"id": ["uuid"], "text.title": {"first": [["name"], ["title"]]},
                      "text.subtitle": ["artist"], "images.main.uri": ["artwork", "url"],
                      "component.id": ["type"]}}, indent=2)

    # Upstream files (upstream.py --files serves them at /files/NAME, max-age=86400).
    for page in range(3):
        write(f"upstream/catalog-page-{page}.json", {"data": {"name": "Catalog", "items": [
            {"uuid": f"cat-{page}-{n:02d}", "name": f"Album {page}.{n:02d}", "artist": f"Artist {n:02d}",
             "artwork": {"url": f"https://images.example.com/albums/{page}/{n:02d}.jpg"}, "type": "default:card"}
            for n in range(12)]}})
    write("upstream/news.json", [row(n, "news") for n in range(15)])
    write("upstream/account.json", {"title": "Account", "body": [row(0, "account")]})

    features = []
    # The root feature: every hub:home... URI but the legacy page.
    write("content/home.json", {"title": "Home", "body": [row(n, "home") for n in range(12)]})
    features.append(feature("home", "Home", 10, {"root": "hub:home", "exclude": ["hub:home:legacy"]}, [
        {"kind": "static", "file": "content/home.json"},
        layout_variant(["home-0000", "home-0001", "home-0002"]),
        {"kind": "variant", "toggle": "promoBanner", "variants": {
            "off": [],
            "on": [{"kind": "patch", "set": {"promo": {"component": {"id": "default:banner", "category": "banner"},
                                                        "text": {"title": "Try Premium"}}},
                    "move": {"promo": 0}}]}}]))
    # 40 exact URIs: genre and editorial pages sharing content files by kind.
    write("content/genre.json", {"body": [row(n, "genre") for n in range(20)]})
    write("content/editorial.json", {"body": [row(n, "editorial") for n in range(8)]})
    genres = ["pop", "rock", "jazz", "blues", "soul", "funk", "disco", "house", "techno", "ambient",
              "folk", "country", "metal", "punk", "reggae", "latin", "kpop", "jpop", "classical", "opera"]
    for i, genre in enumerate(genres):
        features.append(feature(f"genre-{genre}", genre.title(), 100 + i, {"uri": [f"hub:genre:{genre}", f"hub:g:{genre}"]}, [
            {"kind": "static", "file": "content/genre.json"},
            {"kind": "patch", "set": {"genre-0000": {"text": {"title": f"Top {genre.title()}"}}}}]))
    for i in range(20):
        features.append(feature(f"editorial-{i:02d}", f"Editorial {i}", 200 + i, {"uri": f"hub:editorial:{i:02d}"}, [
            {"kind": "static", "file": "content/editorial.json"},
            {"kind": "patch", "set": {"editorial-0000": {"text": {"title": f"Editorial pick {i}"}}}, "move": {"editorial-0003": 0}}]))
    # Patterns with exclusions.
    patterns = [("artist", r"^hub:artist:[a-z0-9]{8,32}$", ["hub:artist:various00"]),
                ("album", r"^hub:album:[a-z0-9]{8,32}(\?.*)?$", ["hub:album:unreleased"]),
                ("playlist", r"^hub:playlist:(user|editorial):[A-Za-z0-9]{4,40}$", ["hub:playlist:user:blocked0"]),
                ("podcast", r"^hub:podcast:[0-9]{3,12}$", []),
                ("episode", r"^hub:podcast:[0-9]{3,12}:episode:[0-9]{1,6}$", ["hub:podcast:000:episode:0"]),
                ("search", r"^hub:search(\?q=[^&#]{0,64})?$", []),
                ("settings", r"^hub:settings:(audio|privacy|notifications|storage)$", ["hub:settings:storage"]),
                ("chart", r"^hub:chart:(top|viral|new):[a-z]{2}$", ["hub:chart:top:xx"])]
    write("content/entity.json", {"body": [row(n, "entity") for n in range(10)]})
    for i, (name, pattern, exclude) in enumerate(patterns):
        match = {"pattern": pattern}
        if exclude:
            match["exclude"] = exclude
        features.append(feature(f"{name}-page", name.title(), 300 + i, match, [
            {"kind": "static", "file": "content/entity.json"},
            {"kind": "patch", "set": {"entity-0000": {"text": {"title": name.title()}}}}]))
    # Remote: a paginated catalog read with the custom schema, a cached news list with stale
    # content, an account page forwarding the caller's Authorization, a localized page with
    # {header.Accept-Language} in its URL (the last two retain headers in the session).
    features.append(feature("catalog", "Catalog", 400, {"root": "hub:catalog"}, [
        {"kind": "static", "json": {"header": {"component": {"id": "default:header", "category": "header"},
                                               "text": {"title": "Catalog"}}}},
        {"kind": "remote", "url": UPSTREAM + "/files/catalog-page-{page}.json", "paginated": True},
        {"kind": "recover", "json": {"body": [{"id": "catalog-offline", "text": {"title": "The catalog is unavailable"}}]}}],
        schema="catalog"))
    features.append(feature("news", "News", 401, {"uri": "hub:news"}, [
        {"kind": "remote", "url": UPSTREAM + "/files/news.json", "timeoutMs": 800,
         "staleIfErrorSeconds": 600, "staleWhileRevalidateSeconds": 30},
        layout_variant(["news-0000", "news-0001"])]))
    features.append(feature("account", "Account", 402, {"uri": "hub:account"}, [
        {"kind": "remote", "url": UPSTREAM + "/files/account.json", "forwardHeaders": ["Authorization"]}]))
    features.append(feature("localized", "Localized", 403, {"pattern": r"^hub:localized:[a-z]+$"}, [
        {"kind": "remote", "url": UPSTREAM + "/files/news.json?lang={header.Accept-Language}", "optional": True},
        {"kind": "static", "json": {"title": "Localized"}}]))
    # The measured views, last in order (every other feature is looked at first).
    for kb in SIZES_KB:
        content = sized_view(kb)
        write(f"content/view-{kb}k.json", content)
        ids = [c["id"] for c in content["body"][:3]]
        features.append(feature(f"view-{kb}k", f"Bench {kb} KB", 900 + kb, {"uri": f"hub:bench:{kb}k"}, [
            {"kind": "static", "file": f"content/view-{kb}k.json"},
            layout_variant(ids),
            {"kind": "patch", "set": {content["body"][-1]["id"]: {"text": {"subtitle": "Patched subtitle"}}},
             "move": {content["body"][-1]["id"]: 0}}]))
    # A measured view of another shape: a static header and first rows, the rest of the body from
    # a cached remote operation (the upstream's max-age=86400), then the layout variant and a patch.
    for kb in REMOTE_SIZES_KB:
        content = sized_view(kb)
        rows = content["body"]
        write(f"content/view-{kb}k.json", {"title": content["title"], "header": content["header"], "body": rows[:8]})
        write(f"upstream/view-{kb}k-rows.json", rows[8:])
        ids = [c["id"] for c in rows[:3]]
        features.append(feature(f"view-{kb}k", f"Bench {kb} KB", 900 + kb, {"uri": f"hub:bench:{kb}k"}, [
            {"kind": "static", "file": f"content/view-{kb}k.json"},
            {"kind": "remote", "url": UPSTREAM + f"/files/view-{kb}k-rows.json"},
            layout_variant(ids),
            {"kind": "patch", "set": {rows[-1]["id"]: {"text": {"subtitle": "Patched subtitle"}}},
             "move": {rows[-1]["id"]: 0}}]))
    if arguments.rearranged:
        for f in features:
            if f["id"].startswith("view-"):
                rearrange(f)
    for f in features:
        write(f"features/{f['id']}.json", f)
    print(f"{len(features)} features")


if __name__ == "__main__":
    main()
