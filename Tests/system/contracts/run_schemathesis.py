#!/usr/bin/env python3
"""Runs the schemathesis CLI (same arguments) with one interpreter workaround.

On CPython 3.11 (Debian 12 ships 3.11.2; 3.11.7 here), hypothesis describing a lambda parses
the lambda's module with `ast`, and from schemathesis' worker threads that parse can fail with
"SystemError: AST constructor recursion depth mismatch", an interpreter bug (the description is
only text for reports). schemathesis reports it as a Runtime Error of the operation under test,
not a finding about the server. The description falls back to hypothesis' own placeholder then.
"""
import sys

import hypothesis.internal.lambda_sources as lambda_sources

_describe = lambda_sources._lambda_description


def _describe_safely(f, *args, **kwargs):
    try:
        return _describe(f, *args, **kwargs)
    except SystemError:
        return "lambda: <unknown>"


lambda_sources._lambda_description = _describe_safely

from schemathesis.cli import schemathesis  # noqa: E402 - after the patch

if __name__ == "__main__":
    sys.argv[0] = "schemathesis"
    sys.exit(schemathesis())
