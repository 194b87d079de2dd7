#!/usr/bin/env python3
"""Validates every view the Swift tests recorded (HUB_TEST_VIEW_DIR, see
Tests/HubServerTests/Support/ViewRecorder.swift) against docs/view-model.schema.json with
jsonschema's Draft 2020-12 validator; POST /action bodies are checked as {performed, view},
GET /view?explain=1 bodies (explained-*) as its ExplainedView and SSE patch events (patch-*) as its
ViewPatchEvent.

    validate_views.py DIR      prints PASS/FAIL, exits 1 on any invalid view or none at all
"""
import glob
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def main():
    directory = sys.argv[1]
    schema = json.load(open(os.path.join(ROOT, "docs", "view-model.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    # The same document with its root pointing at another definition.
    validators = {"explained": "ExplainedView", "patch": "ViewPatchEvent"}
    validators = {kind: jsonschema.Draft202012Validator(dict(schema, **{"$ref": "#/$defs/" + name}),
                                                        format_checker=jsonschema.FormatChecker())
                  for kind, name in validators.items()}
    files = sorted(glob.glob(os.path.join(directory, "*.json")))
    failures = 0
    counts = {}
    for path in files:
        kind = os.path.basename(path).split("-", 1)[0]
        counts[kind] = counts.get(kind, 0) + 1
        text = open(path, "rb").read()
        try:
            document = json.loads(text)
        except ValueError as error:
            print(f"FAIL {path}: not JSON: {error}")
            failures += 1
            continue
        if kind == "action":
            if set(document) != {"performed", "view"} or not isinstance(document["performed"], bool):
                print(f"FAIL {path}: an action response is {{performed, view}}: {text[:200]!r}")
                failures += 1
                continue
            document = document["view"]
        errors = list(validators.get(kind, validator).iter_errors(document))
        if errors:
            failures += 1
            for error in errors[:3]:
                print(f"FAIL {path}: {'/'.join(map(str, error.absolute_path))}: {error.message[:300]}")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    if not files:
        print(f"FAIL no views recorded in {directory}")
        return 1
    print(f"{'FAIL' if failures else 'PASS'} {len(files) - failures}/{len(files)} recorded views valid ({summary})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
