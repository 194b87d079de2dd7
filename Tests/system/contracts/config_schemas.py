#!/usr/bin/env python3
"""The config JSON Schemas (docs/schema/) and the loader agree (`make test-contracts`).

With jsonschema's Draft 2020-12 validator (formats checked, so a match.pattern must compile):
1. every schema is a valid 2020-12 schema, and every default it documents is valid where it stands;
2. every config file of the repository (Config/, Benchmarks/bench/config/, Tests/system/robustness/config/) is valid; Config/'s files
   are valid in the strict form too (unknown keys refused: `validate` warns about none) and their
   "$schema" leads, relative to the file, to the schema that describes it;
3. Tests/system/contracts/config-cases.json, the corpus Tests/HubServerTests/ConfigSchemaTests.swift
   loads with the loader: its base and 'valid' files are valid (strict-valid unless the case
   expects the loader's unknown-key warning, then strict-invalid), its 'invalid' files invalid,
   and its 'beyondSchema' files valid (what only `validate` can refuse).

    config_schemas.py      prints PASS/FAIL, exits 1 on any failure
"""
import glob
import json
import os
import re
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.dont_write_bytecode = True  # no __pycache__ in Tools/
sys.path.insert(0, os.path.join(ROOT, "Tools"))
import config_schema_source as config_schemas  # noqa: E402

CONFIG_DIRECTORIES = ["Config", "Benchmarks/bench/config", "Tests/system/robustness/config"]


def schema_name(relative):
    """The docs/schema/ file that describes a config file (path relative to its config directory)."""
    if relative in ("server.json", "toggles.json", "actions.json"):
        return relative
    if relative.startswith("features/") and relative.count("/") == 1:
        return "feature.json"
    if relative.startswith("schemas/") and relative.count("/") == 1:
        return "custom-schema.json"
    return None


def strict(node):
    """The schema with unknown keys refused, as `validate`'s warnings would flag them."""
    if node == config_schemas.UNKNOWN_KEY:
        return False
    if isinstance(node, dict):
        return {key: strict(value) for key, value in node.items()}
    if isinstance(node, list):
        return [strict(value) for value in node]
    return node


def loader_path(text):
    """`$.operations[0].headers["X-A"]` -> ['operations', 0, 'headers', 'X-A']."""
    steps = []
    for name, index, quoted in re.findall(r'\.([^.\[]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]', text[1:]):
        steps.append(name or (int(index) if index else quoted))
    return steps


def related(error_path, path):
    """The schema's error and the loader's issue are about the same place: one path contains the
    other, or they are siblings (retries with POST: the loader names retries, the schema method)."""
    shorter = min(len(error_path), len(path))
    return error_path[:shorter] == path[:shorter] or (error_path[:-1] == path[:-1] and len(path) > 0)


def defaults(node, path="#"):
    """(path, subschema, default) for every documented default outside $ref'd parts."""
    if isinstance(node, dict):
        if "default" in node and "$ref" not in json.dumps(node):
            yield path, node, node["default"]
        for key, value in node.items():
            yield from defaults(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from defaults(value, f"{path}/{index}")


class Checker:
    def __init__(self):
        self.failures = 0
        self.checked = 0
        self.validators = {}
        for name in config_schemas.SCHEMAS:
            schema = json.load(open(os.path.join(ROOT, "docs", "schema", name), encoding="utf-8"))
            jsonschema.Draft202012Validator.check_schema(schema)
            checker = jsonschema.FormatChecker()
            self.validators[name] = (jsonschema.Draft202012Validator(schema, format_checker=checker),
                                     jsonschema.Draft202012Validator(strict(schema), format_checker=checker))
            for where, subschema, value in defaults(schema):
                self.expect(jsonschema.Draft202012Validator(subschema).is_valid(value), f"{name} {where}: default {value!r} is invalid")

    def expect(self, condition, message):
        self.checked += 1
        if not condition:
            self.failures += 1
            print("FAIL", message)

    def errors(self, name, document, strict_form=False, path=None):
        validator = self.validators[name][1 if strict_form else 0]
        found = [e for e in validator.iter_errors(document) if path is None or related(list(e.absolute_path), path)]
        return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}" for e in found]

    def valid(self, label, name, document, strict_form):
        errors = self.errors(name, document)
        self.expect(not errors, f"{label} ({name}) should be valid: {errors[:3]}")
        if strict_form is not None:
            strict_errors = self.errors(name, document, strict_form=True)
            if strict_form:
                self.expect(not strict_errors, f"{label} has keys {name} does not know: {strict_errors[:3]}")
            else:
                self.expect(bool(strict_errors), f"{label} expects an unknown-key warning, but {name} knows every key")

    def invalid(self, label, name, document, path):
        """Invalid, with an error where the loader reports its issue."""
        self.expect(bool(self.errors(name, document, path=loader_path(path))),
                    f"{label} ({name}) should be invalid at {path}, as the loader says: {self.errors(name, document)[:3]}")


def check_directories(checker):
    for directory in CONFIG_DIRECTORIES:
        base = os.path.join(ROOT, directory)
        files = sorted(glob.glob(os.path.join(base, "*.json")) + glob.glob(os.path.join(base, "*", "*.json")))
        for path in files:
            relative = os.path.relpath(path, base)
            name = schema_name(relative)
            if name is None:
                continue  # content/: view JSON, not config
            document = json.load(open(path, encoding="utf-8"))
            label = f"{directory}/{relative}"
            demo = directory == "Config"
            checker.valid(label, name, document, True if demo else None)
            if demo:
                reference = document.get("$schema", "")
                target = os.path.normpath(os.path.join(os.path.dirname(path), reference))
                checker.expect(target == os.path.join(ROOT, "docs", "schema", name),
                               f"{label}: \"$schema\": {reference!r} should lead to docs/schema/{name}")


def check_cases(checker):
    cases = json.load(open(os.path.join(ROOT, "Tests", "system", "contracts", "config-cases.json"), encoding="utf-8"))
    for relative, document in cases["base"].items():
        if schema_name(relative):
            checker.valid(f"base {relative}", schema_name(relative), document, True)
    for case in cases["valid"]:
        checker.valid(f"valid case '{case['name']}'", schema_name(case["file"]), case["json"], not case["warnings"])
    for case in cases["invalid"]:
        checker.invalid(f"invalid case {case['file']} ({case['source']})", schema_name(case["file"]), case["json"], case["path"])
    for case in cases["beyondSchema"]:
        checker.valid(f"beyond-schema case {case['file']} ({case['why']})", schema_name(case["file"]), case["json"], None)
    return cases


def main():
    checker = Checker()
    check_directories(checker)
    cases = check_cases(checker)
    counts = f"{len(cases['valid'])} valid, {len(cases['invalid'])} invalid, {len(cases['beyondSchema'])} beyond-schema cases"
    verdict = "FAIL" if checker.failures else "PASS"
    print(f"{verdict} config schemas: {checker.checked - checker.failures}/{checker.checked} checks ({counts})")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
