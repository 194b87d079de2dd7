#!/usr/bin/env python3
"""HubServer's contracts: the OpenAPI 3.1 document, the view-model JSON Schema (2020-12) and the
config JSON Schemas (2020-12, from Tools/config_schema_source.py).

One source of truth, these outputs:
  docs/openapi.json                              the API (GET /openapi.json serves these bytes)
  docs/view-model.schema.json                    the view model (GET /schema/view-model.json)
  docs/schema/NAME.json                          the config files (GET /schema/config/NAME.json)
  Sources/HubServer/Resources/                   the same files, embedded in the binary by SwiftPM
                                                 (Package.swift)

  python3 Tools/contracts.py           write the files
  python3 Tools/contracts.py --check   exit 1 when any file differs from what this script writes

The OpenAPI document carries the view-model definitions under components/schemas (the same
definitions, with their references rewritten), so that generators and validators need no
second fetch; /schema/view-model.json is named in its externalDocs and in ViewModel's $id.
"""
import copy
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in Tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import config_schema_source as config_schemas  # noqa: E402  (Tools/ is not a package)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_URL = "/schema/view-model.json"
VERSION = "0.1.0"

# --------------------------------------------------------------------------- view model

FREE = {
    "type": "object",
    "minProperties": 1,
    "description": "Free-form JSON object, keys in input order; never empty (empty objects are omitted).",
}


def string(description=None, **extra):
    schema = {"type": "string"}
    if description:
        schema["description"] = description
    schema.update(extra)
    return schema


VIEW_MODEL_DEFS = {
    "ViewModel": {
        "type": "object",
        "description": "A view model in HubFramework's default schema, as HubServer serializes it: keys in a fixed "
        "order, no null, no empty object or array (such values are omitted).",
        "additionalProperties": False,
        "properties": {
            "id": string("The view identifier."),
            "title": string("The view title."),
            "header": {"$ref": "#/$defs/Component"},
            "body": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Component"}},
            "overlays": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Component"}},
            "custom": FREE,
        },
    },
    "NonEmptyViewModel": {
        "description": "A view model with at least one key (a component target's initial view).",
        "allOf": [{"$ref": "#/$defs/ViewModel"}, {"minProperties": 1}],
    },
    "ComponentIdentifier": string(
        "namespace:name: exactly one ':', neither part empty.", pattern="^[^:]+:[^:]+$"),
    "Component": {
        "type": "object",
        "description": "A component model. 'id' is unique within its list (a component without one gets a "
        "deterministic id such as 'UnknownComponent:body.0'); 'component' is always present.",
        "additionalProperties": False,
        "required": ["id", "component"],
        "properties": {
            "id": string("The component identifier."),
            "group": string("The group identifier."),
            "component": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "category"],
                "properties": {
                    "id": {"$ref": "#/$defs/ComponentIdentifier"},
                    "category": string("The component category (the fallback family)."),
                },
            },
            "text": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": False,
                "properties": {
                    "title": string(), "subtitle": string(), "accessory": string(), "description": string(),
                },
            },
            "images": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": False,
                "properties": {
                    "main": {"$ref": "#/$defs/Image"},
                    "background": {"$ref": "#/$defs/Image"},
                    "icon": string("An icon name, kept as a plain string."),
                    "custom": {"type": "object", "minProperties": 1, "additionalProperties": {"$ref": "#/$defs/Image"}},
                },
            },
            "target": {"$ref": "#/$defs/Target"},
            "metadata": FREE,
            "logging": FREE,
            "custom": FREE,
            "children": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Component"}},
        },
    },
    "Image": {
        "type": "object",
        "minProperties": 1,
        "additionalProperties": False,
        "properties": {
            "uri": string("The image URL."),
            "placeholder": string("A placeholder icon name, kept as a plain string."),
            "local": string("The name of an image bundled with the app."),
            "custom": FREE,
        },
    },
    "Target": {
        "type": "object",
        "minProperties": 1,
        "additionalProperties": False,
        "properties": {
            "uri": string("Where selecting the component navigates."),
            "view": {"$ref": "#/$defs/NonEmptyViewModel"},
            "actions": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/ComponentIdentifier"}},
            "custom": FREE,
        },
    },
}

def ids(description):
    return {"type": "array", "items": string(), "description": description}


VIEW_MODEL_DEFS["ExplainedView"] = {
    "type": "object",
    "description": "GET /view?explain=1 (server.json debug.explain): the view, exactly the fields of the plain answer, "
    "plus 'explain'. Sent with Cache-Control: no-store and no ETag; never cached.",
    "additionalProperties": False,
    "required": ["explain"],
    "properties": {**VIEW_MODEL_DEFS["ViewModel"]["properties"], "explain": {"$ref": "#/$defs/Explain"}},
}
VIEW_MODEL_DEFS["Explain"] = {
    "type": "object",
    "description": "How the chain's latest run made the view.",
    "additionalProperties": False,
    "required": ["operations"],
    "properties": {"operations": {"type": "array", "description": "The operations in chain order.",
                                  "items": {"$ref": "#/$defs/ExplainedOperation"}}},
}
VIEW_MODEL_DEFS["ExplainedOperation"] = {
    "type": "object",
    "description": "One operation: the components it created, modified (content changed), moved (position changed) and "
    "removed, found by comparing the view before it with the view after it, by component id (header, body, overlays).",
    "additionalProperties": False,
    "required": ["name", "kind", "durationMs", "outcome", "created", "modified", "moved", "removed"],
    "properties": {
        "name": string("The operation's name (as in Server-Timing)."),
        "kind": string("The kind as written in config: static, remote, patch, recover, variant, swift."),
        "durationMs": {"type": "number", "minimum": 0, "description": "How long it ran (0 for a memo hit)."},
        "outcome": {"enum": ["ran", "memo", "skipped", "failed", "recovered"],
                    "description": "ran; memo (from the chain memo); skipped (did not run, or a recover operation "
                    "without an error to handle); failed; recovered (succeeded after the operation before it failed)."},
        "created": ids("Component ids it added."),
        "modified": ids("Component ids whose content it changed."),
        "moved": ids("Component ids whose position it changed."),
        "removed": ids("Component ids it removed."),
    },
}
VIEW_MODEL_DEFS["ViewPatchEvent"] = {
    "type": "object",
    "description": "The data of an 'event: patch' of GET /view/events?patch=json-patch: applying 'patch' (RFC 6902) to "
    "the view whose event id is 'base' gives the view of this event's id (compare as JSON).",
    "additionalProperties": False,
    "required": ["base", "patch"],
    "properties": {
        "base": string("The event id (the ETag without quotes) of the view the patch applies to."),
        "patch": {"type": "array", "items": {"$ref": "#/$defs/JSONPatchOperation"}},
    },
}
VIEW_MODEL_DEFS["JSONPatchOperation"] = {
    "type": "object",
    "description": "An RFC 6902 operation as the server sends them: add, remove, replace and move.",
    "required": ["op", "path"],
    "additionalProperties": False,
    "properties": {
        "op": {"enum": ["add", "remove", "replace", "move"]},
        "path": string("A JSON Pointer (RFC 6901)."),
        "from": string("A JSON Pointer (move)."),
        "value": {"description": "The value (add, replace)."},
    },
}

VIEW_MODEL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_URL,
    "title": "HubServer view model (HubFramework default schema)",
    "$ref": "#/$defs/ViewModel",
    "$defs": VIEW_MODEL_DEFS,
}


def openapi_components_from_view_model():
    """The view-model definitions with '#/$defs/X' rewritten to '#/components/schemas/X'."""
    def rewrite(node):
        if isinstance(node, dict):
            return {k: (v.replace("#/$defs/", "#/components/schemas/") if k == "$ref" else rewrite(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        return node
    return rewrite(copy.deepcopy(VIEW_MODEL_DEFS))


# --------------------------------------------------------------------------- OpenAPI


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def header_param(name, description, schema=None, required=False):
    return {"name": name, "in": "header", "required": required, "description": description, "schema": schema or {"type": "string"}}


def p(name):
    return {"$ref": f"#/components/parameters/{name}"}


PARAMETERS = {
    "uriQuery": {
        "name": "uri", "in": "query", "description": "The view URI, such as hub:home (at most once; "
        "non-empty printable text of at most 4096 bytes). With 'session' too, it recovers a lost session.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"},
        "examples": {"home": {"value": "hub:home"}, "todo": {"value": "hub:todo"}, "catalog": {"value": "hub:catalog"}},
    },
    "sessionQuery": {
        "name": "session", "in": "query", "description": "A session token from Hub-Session (at most once); a session this process does not hold is rebuilt from it. "
        "The Hub-Session request header may name the session instead (400 session_mismatch when both name different sessions).",
        "schema": {"type": "string", "maxLength": 128},
    },
    "sessionQueryOrHeader": {
        "name": "session", "in": "query",
        "description": "A session token from Hub-Session (at most once, non-empty); a session this process does not hold is rebuilt from it. "
        "Required unless the Hub-Session request header names the session (400 missing_session without either; "
        "400 session_mismatch when both name different sessions).",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    "HubSignatureTimestamp": header_param(
        "Hub-Signature-Timestamp", "When the invalidation was signed, in seconds since the Unix epoch (1 to 12 digits); "
        "more than 5 minutes from the server's clock, either way, is 401 stale_signature.",
        {"type": "string", "pattern": "^[0-9]{1,12}$"}, required=True),
    "HubSignature": header_param(
        "Hub-Signature", "sha256=<hex HMAC-SHA256 of \"<Hub-Signature-Timestamp>.<body>\"> under one of "
        "server.json invalidation.secrets (HUB_INVALIDATION_SECRETS), each used as its UTF-8 bytes; several values may be "
        "given, comma-separated (a rotation), and one that verifies is enough.",
        {"type": "string", "maxLength": 1024}, required=True),
    "IdempotencyKey": header_param(
        "Idempotency-Key", "draft-ietf-httpapi-idempotency-key-header: a structured-field string (\"k1\") or token of 1 to "
        "255 bytes, per session. The first answer is kept with the session's state for 24 hours; a retry with the same "
        "key and body gets it again (Idempotent-Replayed: true) and performs nothing; another body is 422 "
        "idempotency_key_reused; a retry while the first still runs is 409 idempotency_key_in_use.",
        {"type": "string", "maxLength": 512}),
    "HubSessionHeader": header_param(
        "Hub-Session", "The session token, sent back as received in the Hub-Session response header (at most once). "
        "Names the session like the endpoint's own 'session' (query or body), which it may replace; both naming different "
        "sessions is 400 session_mismatch. Load balancers hash on its first 22 characters (the session id) to keep a "
        "session on one replica; any replica rebuilds a session it does not hold."),
    "uriQueryRequired": {
        "name": "uri", "in": "query", "required": True, "description": "The view URI, such as hub:home (at most once; "
        "non-empty printable text of at most 4096 bytes).",
        "schema": {"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"},
        "examples": {"home": {"value": "hub:home"}, "food": {"value": "hub:food"}},
    },
    "uriQueryPreview": {
        "name": "uri", "in": "query", "description": "The view URI to preview (at most once; non-empty printable "
        "text of at most 4096 bytes); without it, the page lists the features.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"},
        "examples": {"home": {"value": "hub:home"}, "todo": {"value": "hub:todo"}},
    },
    "HubConnectivity": header_param("Hub-Connectivity", "online (default) or offline; a change reloads the "
                                    "session from its initial content. Any other value counts as online."),
    "AcceptLanguage": header_param("Accept-Language", "Languages for operations and localized titles (RFC 9110 12.5.4); "
                                   "with server.json locales, RFC 4647 lookup picks the view's locale from it."),
    "HubLocale": header_param("Hub-Locale", "With server.json locales: the locale asked for, used when it is one of "
                              "locales.supported (before Accept-Language). A held session keeps the locale it was "
                              "opened with."),
    "HubClient": header_param("Hub-Client", "platform/semver of the client (ios/5.1.2, android/3.0.0-beta): "
                              "components.killSwitches give a component's fallback to versions below a rule's. "
                              "At most 128 bytes (longer: 431 headers_too_large).",
                              {"type": "string", "maxLength": 128}),
    "explainQuery": {
        "name": "explain", "in": "query", "description": "1 (or true): the view plus how each operation made it "
        "('explain'; server.json debug.explain, off by default: 400 explain_disabled). 0 or false: the plain view.",
        "schema": {"type": "string", "enum": ["0", "1", "false", "true"]},
    },
    "patchQuery": {
        "name": "patch", "in": "query", "description": "json-patch: after the first view, each change is "
        "'event: patch' with an RFC 6902 patch from the previous view (when smaller than the view). The query form "
        "exists because EventSource cannot set headers; Hub-Accept-Patch does the same.",
        "schema": {"type": "string", "enum": ["json-patch"]},
    },
    "HubAcceptPatch": header_param("Hub-Accept-Patch", "json-patch: as the patch query parameter; other values are "
                                   "ignored (full views)."),
    "HubComponents": header_param("Hub-Components", "Comma-separated ns:name components the client renders; "
                                  "others get their category's fallback."),
    "HubToggle": header_param("Hub-Toggle", "name=value: a QA override of a toggle (when allowToggleOverride). "
                              "At most 1024 bytes (longer: 431 headers_too_large).", {"type": "string", "maxLength": 1024}),
    "HubClientId": header_param("Hub-Client-Id", "A stable client id (the demo's rollout key)."),
    "IfNoneMatch": header_param("If-None-Match", "An ETag from an earlier response: 304 when it still matches."),
    "AcceptEncoding": header_param("Accept-Encoding", "gzip is used when preferred and the body is large enough."),
    "LastEventID": header_param("Last-Event-ID", "Accepted on reconnection: the current view's id sends nothing until "
                                "the next change; a recent view's id sends a patch from it (with patch=json-patch); "
                                "any other id sends the current view."),
    "traceparent": header_param("traceparent", "W3C trace context; invalid or absent starts a new trace."),
    "tracestate": header_param("tracestate", "W3C trace state, forwarded with a valid traceparent."),
    "XRequestId": header_param("X-Request-Id", "Echoed when sane, else generated."),
}

COMMON_HEADERS = [p("traceparent"), p("tracestate"), p("XRequestId")]
ENGINE_HEADERS = [p("HubConnectivity"), p("AcceptLanguage"), p("HubLocale"), p("HubClient"), p("HubComponents"), p("HubToggle"),
                  p("HubClientId"), p("AcceptEncoding")]


def h(name):
    return {"$ref": f"#/components/headers/{name}"}


HEADERS = {
    "HubSession": {"description": "The session token: the session's 128-bit random id (the bearer secret) and its view URI, URL-safe. Send it back as received, as the Hub-Session request header (the key load balancers route by); any replica rebuilds the session from it (absent after a failed first load).", "schema": {"type": "string"}},
    "ETag": {"description": "Strong ETag of the view (weak, W/, for the gzip-encoded body).", "schema": {"type": "string"}},
    "DocumentETag": {"description": "Strong ETag of the body (weak, W/, for the gzip-encoded body): send it back "
                     "in If-None-Match to revalidate (304).", "schema": {"type": "string"}},
    "CacheControl": {"description": "How caches may keep the response: private, no-cache (views: revalidate with "
                     "the ETag), private, no-store (GET /view/events: a session's stream), no-cache (GET /features, "
                     "GET /preview: change with a config reload), max-age=300 (the contract documents), no-store "
                     "(health, readiness, metrics, action results, problems).", "schema": {"type": "string"}},
    "ServerTiming": {"description": "One entry per operation of the chain (op<N>;desc=...;dur=ms).", "schema": {"type": "string"}},
    "HubVersion": {"description": "The session's view version.", "schema": {"type": "string"}},
    "HubStale": {"description": "Present when remote operations built the view from their last good content (the "
                 "upstream failing, or one refresh under way): a structured-field list (RFC 8941) with one entry per "
                 "such operation, its name and the content's age in seconds, e.g. remote;age=12.",
                 "schema": {"type": "string"}},
    "HubRebuilt": {"description": "Present when this request rebuilt the session from its token (this replica did "
                   "not hold it) and the rebuild's chain run read the session's own (session-scoped) state: state-kept "
                   "when it found at least one value, state-lost when it found none (the state is gone, or was never "
                   "written: a token is issued before any state is). Absent for a held session and for a rebuild that "
                   "read no session state.", "schema": {"type": "string", "enum": ["state-kept", "state-lost"]}},
    "ContentLanguage": {"description": "With server.json locales: the view's locale (the session's, for a held "
                        "session). Absent without locales, and on a 304.", "schema": {"type": "string"}},
    "Vary": {"description": "The request headers the response depends on: Accept-Encoding (bodies that may be "
             "gzipped), Accept-Language and Hub-Locale (with server.json locales), Origin (CORS with exact origins).",
             "schema": {"type": "string"}},
    "RetryAfter": {"description": "Seconds to wait before retrying.", "schema": {"type": "string"}},
    "WWWAuthenticate": {"description": "The bearer challenge (RFC 6750): Bearer realm=\"hubserver\" without "
                        "credentials, with error=\"invalid_token\" for a token that does not verify, error="
                        "\"insufficient_scope\" for a user without the claims the feature requires.",
                        "schema": {"type": "string"}},
    "XRequestId": {"description": "The request id.", "schema": {"type": "string"}},
    "Allow": {"description": "The methods the route allows.", "schema": {"type": "string"}},
    "ContentSecurityPolicy": {"description": "Only the page's own inline style and script (by hash), same-origin "
                              "requests, https: and data: images (http: images too when the Host is a loopback "
                              "host: 127.0.0.1, localhost or [::1]).", "schema": {"type": "string"}},
}


def problem(description, codes):
    return {
        "description": description + " Codes: " + ", ".join(codes) + ".",
        "headers": {"Cache-Control": h("CacheControl"), "X-Request-Id": h("XRequestId")},
        "content": {"application/problem+json": {"schema": {
            "allOf": [ref("Problem"), {"properties": {"code": {"enum": codes}}}]}}},
    }


# Answers of the HTTP layer before routing (malformed or oversized requests), possible on every operation.
TRANSPORT_PROBLEMS = {
    "400": ["invalid_request_line", "invalid_method", "invalid_target", "invalid_version", "missing_host", "duplicate_host",
            "invalid_host", "obs_fold", "invalid_header", "invalid_header_name", "invalid_header_value", "bare_lf",
            "ambiguous_framing", "invalid_transfer_encoding", "duplicate_content_length", "invalid_content_length",
            "invalid_chunk", "invalid_query", "invalid_path"],
    "405": ["method_not_allowed"],
    "408": ["header_timeout", "body_timeout"],
    "413": ["body_too_large"],
    "414": ["request_line_too_long"],
    "417": ["expectation_failed"],
    "431": ["headers_too_large", "too_many_headers"],
    "501": ["method_not_implemented", "transfer_coding_not_implemented"],
    "503": ["connection_limit"],
    "505": ["version_not_supported"],
}


def transport_response(status):
    """The shared response of a status only the HTTP layer answers (components/responses)."""
    response = problem("Rejected by the HTTP layer.", TRANSPORT_PROBLEMS[status])
    if status == "405":
        response["headers"]["Allow"] = h("Allow")
    return response


# Who the user is (docs/SECURITY.md): checked before every endpoint, so possible on every operation.
IDENTITY_PROBLEMS = {
    "400": ("server.json identity.header came from a peer outside trustedProxies, or names no usable user.",
            ["untrusted_identity"]),
    "401": ("The Authorization: Bearer token does not verify (expired, not yet valid, signature, issuer, audience, "
            "algorithm, unknown key, malformed or over 8 KiB): on every endpoint, public ones too, when server.json "
            "identity.jwt is set (WWW-Authenticate: Bearer realm=\"hubserver\", error=\"invalid_token\").",
            ["invalid_token"]),
}

# What a feature's access rule, or a chain that reads the user, may answer (views, actions, pages, streams).
USER_PROBLEMS = {
    "401": ("The feature requires a user (its access rule), or its chain reads one ({user.sub}, {user.claim.NAME}, "
            "forwardIdentity, context.user, StateScope.user), and the request has none (WWW-Authenticate: Bearer "
            "realm=\"hubserver\").", ["authentication_required"]),
    "403": ("The user's token lacks a claim value the feature's access.claims requires (WWW-Authenticate: Bearer "
            "realm=\"hubserver\", error=\"insufficient_scope\").", ["insufficient_claims"]),
}

# A session a verified user opened is bound to them (docs/SESSIONS.md).
BOUND = (" A session a verified user opened is theirs alone: its token with another user's credentials is 404, "
         "and so is it without credentials (except on GET /view/events).")


def with_identity(problems, user):
    """`problems` with the identity gate's (and, for `user`, the access rules') problems merged in."""
    merged = dict(problems)
    added = dict(IDENTITY_PROBLEMS)
    for status, (description, codes) in (USER_PROBLEMS.items() if user else []):
        if status in added:
            description = added[status][0] + " Or: " + description[0].lower() + description[1:]
            codes = added[status][1] + codes
        added[status] = (description, codes)
    for status, (description, codes) in added.items():
        if status in merged:
            own_description, own_codes = merged[status]
            merged[status] = (own_description + " Or: " + description[0].lower() + description[1:], own_codes + codes)
        else:
            merged[status] = (description, codes)
    return merged


def responses(ok, problems, user=False):
    """`ok`: the success responses; `problems`: status -> (description, codes) of this operation.
    Statuses only the HTTP layer answers refer to components/responses/Transport<status>. Every
    operation may answer the identity gate's problems; `user`: the access rules' too."""
    problems = with_identity(problems, user)
    result = dict(ok)
    for status in sorted(set(TRANSPORT_PROBLEMS) | set(problems)):
        if status not in problems:
            result[status] = {"$ref": f"#/components/responses/Transport{status}"}
            continue
        description, codes = problems[status]
        merged = codes + [c for c in TRANSPORT_PROBLEMS.get(status, []) if c not in codes]
        response = problem(description, merged)
        if status in ("429", "503"):
            response["headers"]["Retry-After"] = h("RetryAfter")
        if status in ("401", "403"):
            response["headers"]["WWW-Authenticate"] = h("WWWAuthenticate")
        result[status] = response
    return result


FAILED_VIEW = {
    "500": ("The chain failed without an upstream (the last operation's error), or produced no view.",
            ["operation_failed", "no_operations", "no_view_model", "internal_error"]),
    "502": ("An upstream failed (non-2xx, refused, reset, empty, unparseable or too large).", ["upstream_error"]),
    "504": ("An upstream or the operation deadline timed out.", ["upstream_timeout", "operation_timeout"]),
    "503": ("An operation could not read the state store (state.onReadError fail), or a shared store's revocations "
            "are not loaded yet and this replica does not hold the session (it is not rebuilt); retry after Retry-After.",
            ["state_unavailable"]),
}

# What an action that writes state may answer besides its view (docs/CONFIG.md "State").
STATE_WRITES = {
    "409": ("The state value kept changing under the action's compare-and-set (its retries ran out).", ["state_conflict"]),
    "413": ("A state value the action wrote is over state.maxValueBytes, or would take its session's or subject's "
            "values past state.maxSessionBytes or state.maxSubjectBytes (nothing changed).", ["state_too_large"]),
}

VIEW_HEADERS = {
    "Hub-Session": h("HubSession"), "ETag": h("ETag"), "Cache-Control": h("CacheControl"), "Server-Timing": h("ServerTiming"),
    "Hub-Version": h("HubVersion"), "Hub-Stale": h("HubStale"), "Hub-Rebuilt": h("HubRebuilt"), "X-Request-Id": h("XRequestId"),
    "Content-Language": h("ContentLanguage"), "Vary": h("Vary"),
}

# Headers of a response no cache keeps (Cache-Control: no-store).
UNCACHED_HEADERS = {"Cache-Control": h("CacheControl"), "X-Request-Id": h("XRequestId")}


def revalidated(ok):
    """`ok` (a 200 with a body) with its ETag, and the 304 that If-None-Match gets while it matches."""
    ok = dict(ok)
    ok["headers"] = {"ETag": h("DocumentETag"), "Cache-Control": h("CacheControl"), **ok["headers"]}
    return {"200": ok, "304": {"description": "Not modified: If-None-Match matched.",
                               "headers": {"ETag": h("DocumentETag"), "Cache-Control": h("CacheControl"),
                                           "X-Request-Id": h("XRequestId")}}}


def view_ok(links=None, with_session=True, explained=False):
    headers = dict(VIEW_HEADERS)
    if not with_session:
        headers.pop("Hub-Session")
        headers.pop("Hub-Rebuilt")
    schema = {"oneOf": [ref("ViewModel"), ref("ExplainedView")]} if explained else ref("ViewModel")
    description = ("The view model; with explain=1, the view plus 'explain' (Cache-Control: no-store, no ETag)."
                   if explained else "The view model.")
    ok = {"description": description, "headers": headers,
          "content": {"application/json": {"schema": schema}}}
    if links:
        ok["links"] = links
    not_modified = {"ETag": h("ETag"), "Cache-Control": h("CacheControl"), "X-Request-Id": h("XRequestId")}
    if with_session:
        not_modified["Hub-Rebuilt"] = h("HubRebuilt")
    return {"200": ok, "304": {"description": "Not modified: If-None-Match matched.", "headers": not_modified}}


SESSION_LINKS = {
    "PerformAction": {
        "operationId": "performAction",
        "requestBody": {"session": "$response.header.Hub-Session", "action": "hub:reload"},
        "description": "Perform an action in the session.",
    },
    "ReloadSession": {
        "operationId": "getView",
        "parameters": {"query.session": "$response.header.Hub-Session"},
        "description": "The session's view.",
    },
    "ReloadSessionByHeader": {
        "operationId": "getView",
        "parameters": {"header.Hub-Session": "$response.header.Hub-Session"},
        "description": "The session's view, named by the Hub-Session request header.",
    },
    "NextPage": {
        "operationId": "nextPage",
        "requestBody": {"session": "$response.header.Hub-Session"},
        "description": "The next page of the session's view.",
    },
    "EndSession": {
        "operationId": "deleteView",
        "parameters": {"query.session": "$response.header.Hub-Session"},
        "description": "End the session.",
    },
}

JSON_BODY_PROBLEMS = {
    "400": ("The body is not valid JSON (syntax, UTF-8, duplicate keys, numbers out of range, depth).", ["invalid_json"]),
    "415": ("The body is not application/json, or names a charset other than UTF-8.", ["unsupported_media_type"]),
    "422": ("Valid JSON of the wrong shape.", ["invalid_body"]),
}

SESSION_LIMIT = {
    "429": ("The client stored more sessions (new, rebuilt from a token, a lazy token's first use) or recorded more "
            "revocations than limits.sessionsPerClient allows (Retry-After).", ["too_many_sessions"]),
}

VIEW_QUERY_PROBLEMS = {
    "400": ("The query is invalid, it and the Hub-Session header name different sessions, or explain=1 while "
            "server.json debug.explain is off.",
            ["missing_uri", "invalid_uri", "duplicate_parameter", "session_mismatch", "unsafe_url", "invalid_parameter",
             "explain_disabled"]),
}

PATHS = {
    "/view": {
        "get": {
            "operationId": "getView",
            "summary": "Open a session for a view URI, or load a session's view",
            "description": "With uri: resolves the feature, opens a session and runs the content loading chain. With "
            "session: the session's view (its reload policy decides whether the chain re-runs); with both, an unknown "
            "session falls back to uri. One of them is required.",
            "parameters": [p("uriQuery"), p("sessionQuery"), p("explainQuery"), p("HubSessionHeader"), p("IfNoneMatch")]
            + ENGINE_HEADERS + COMMON_HEADERS,
            "responses": responses(view_ok(SESSION_LINKS, explained=True), {
                **VIEW_QUERY_PROBLEMS,
                "404": ("No feature matches the URI, or the token does not verify (forged, tampered, another "
                        "server's key, expired, revoked; without uri)." + BOUND, ["feature_not_found", "session_not_found"]),
                **SESSION_LIMIT,
                **FAILED_VIEW}, user=True),
        },
        "head": {
            "operationId": "headView",
            "summary": "GET /view without the body; with uri it opens no session",
            "parameters": [p("uriQuery"), p("sessionQuery"), p("explainQuery"), p("HubSessionHeader"), p("IfNoneMatch")]
            + ENGINE_HEADERS + COMMON_HEADERS,
            "responses": responses({
                "200": {"description": "The headers GET would send (Hub-Session only for a session).",
                        "headers": VIEW_HEADERS},
                "304": {"description": "Not modified.", "headers": {"ETag": h("ETag"), "Cache-Control": h("CacheControl")}},
            }, {**VIEW_QUERY_PROBLEMS,
                "404": ("No feature matches, or the session is unknown." + BOUND, ["feature_not_found", "session_not_found"]),
                **FAILED_VIEW}, user=True),
        },
        "delete": {
            "operationId": "deleteView",
            "summary": "Revoke a session token: the session ends and the token is refused until it expires",
            "parameters": [p("sessionQueryOrHeader"), p("HubSessionHeader")] + COMMON_HEADERS,
            "responses": responses({"204": {"description": "Revoked (or revoked already, or a lazy token that named "
                                            "nothing stored: forgotten).", "headers": UNCACHED_HEADERS}}, {
                "400": ("The session is missing or repeated, or the query and the Hub-Session header name different sessions.",
                        ["missing_session", "duplicate_parameter", "session_mismatch"]),
                "404": ("The token does not verify (nothing is recorded)." + BOUND, ["session_not_found"]),
                "403": USER_PROBLEMS["403"],
                "503": ("The state store could not record the revocation: the token is refused by this replica at once "
                        "and the revocation is written when the store returns; retry after Retry-After (204 once "
                        "written).", ["state_unavailable"]),
                **SESSION_LIMIT}),
        },
    },
    "/view/initial": {
        "get": {
            "operationId": "getInitialView",
            "summary": "Only the initial content of a view (the operations' initial)",
            "parameters": [p("uriQueryRequired"), p("IfNoneMatch")] + ENGINE_HEADERS + COMMON_HEADERS,
            "responses": responses(view_ok(with_session=False), {
                "400": ("The query is invalid.", ["missing_uri", "invalid_uri", "duplicate_parameter"]),
                "404": ("No feature matches the URI.", ["feature_not_found"]),
                "500": ("The feature has no operations or no initial content.", ["no_operations", "no_view_model", "internal_error"])},
                user=True),
        },
    },
    "/view/next-page": {
        "post": {
            "operationId": "nextPage",
            "summary": "Run the chain in pagination mode: the full view with the next page appended",
            "parameters": [p("HubSessionHeader"), p("IfNoneMatch")] + ENGINE_HEADERS + COMMON_HEADERS,
            "requestBody": {"required": True, "content": {"application/json": {"schema": ref("NextPageRequest")}}},
            "responses": responses(view_ok(), {
                **JSON_BODY_PROBLEMS,
                "400": ("The body is not valid JSON, the client's values would take a remote URL out of bounds, or the "
                        "body and the Hub-Session header name different sessions (or the header is repeated).",
                        ["invalid_json", "unsafe_url", "session_mismatch", "duplicate_parameter"]),
                "422": ("Valid JSON of the wrong shape, or no session in the body or the Hub-Session header.", ["invalid_body"]),
                "404": ("No such session." + BOUND, ["session_not_found"]),
                **SESSION_LIMIT,
                **FAILED_VIEW}, user=True),
        },
    },
    "/view/events": {
        "get": {
            "operationId": "getViewEvents",
            "summary": "Server-Sent Events: 'event: view' with the current model, then one per change",
            "description": "A heartbeat comment every 15 s. Refused before it opens past "
            "limits.sseListenersPerSession or limits.sseStreamsPerClient (429) or limits.sseStreams (503). The server "
            "ends the stream when it drains and after 80-100% of timeouts.streamSeconds (default 600): reconnect with "
            "Last-Event-ID (EventSource does) and nothing is lost. When a config reload removes the view's "
            "feature, 'event: end' with data {\"reason\":\"feature_removed\"} precedes the close: do not reconnect. "
            "With patch=json-patch (or Hub-Accept-Patch: json-patch), each change after the first view is "
            "'event: patch' whose data is a ViewPatchEvent {\"base\": id, \"patch\": [RFC 6902]} and whose id is the "
            "new view's; a change whose patch would be larger than the view is a full 'event: view'. A stream that "
            "rebuilt its session (and read its session-scoped state) sends, once and before its first 'event: view', "
            "'event: rebuilt' with data {\"rebuilt\":\"state-lost\"} or {\"rebuilt\":\"state-kept\"} and no id "
            "(EventSource cannot read the Hub-Rebuilt response header). The token of a session a verified user opened "
            "authorises its stream alone, without credentials (EventSource sends none), while this replica holds the "
            "session; rebuilding it needs the user's credentials (else 404).",
            "parameters": [p("sessionQueryOrHeader"), p("patchQuery"), p("HubSessionHeader"), p("LastEventID"),
                           p("HubAcceptPatch"), p("HubComponents"), p("HubClient"), p("AcceptEncoding")] + COMMON_HEADERS,
            "responses": responses({
                "200": {"description": "The event stream; each 'view' event's data is a view model (application/json), "
                        "each 'patch' event's a ViewPatchEvent.",
                        "headers": {"Hub-Session": h("HubSession"), "Cache-Control": h("CacheControl"),
                                    "Hub-Rebuilt": h("HubRebuilt"), "X-Request-Id": h("XRequestId")},
                        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
            }, {
                "400": ("The session is missing or repeated, the query and the Hub-Session header name different sessions, "
                        "or patch is not json-patch.",
                        ["missing_session", "duplicate_parameter", "session_mismatch", "invalid_parameter"]),
                "404": ("No such session." + BOUND, ["session_not_found"]),
                "429": ("Too many streams for this session or this client (Retry-After: 10), or a rebuild past "
                        "limits.sessionsPerClient (Retry-After).", ["too_many_streams", "too_many_sessions"]),
                "503": ("Too many streams on this server (Retry-After: 30), or a shared store's revocations are not "
                        "loaded yet and this replica does not hold the session (Retry-After).",
                        ["stream_limit", "state_unavailable"])}, user=True),
        },
    },
    "/action": {
        "post": {
            "operationId": "performAction",
            "summary": "Perform an action (or select a component); the view after the chain settles",
            "parameters": [p("HubSessionHeader"), p("IdempotencyKey")] + ENGINE_HEADERS + COMMON_HEADERS,
            "requestBody": {"required": True, "content": {"application/json": {"schema": ref("ActionRequest")}}},
            "responses": responses({
                "200": {"description": "Whether the action was performed (false: vetoed or declined), and the view.",
                        "headers": {"Hub-Session": h("HubSession"), "ETag": h("ETag"), "Hub-Version": h("HubVersion"),
                                    "Hub-Stale": h("HubStale"), "Hub-Rebuilt": h("HubRebuilt"),
                                    "Cache-Control": h("CacheControl"), "Content-Language": h("ContentLanguage"),
                                    "Idempotent-Replayed": {
                                        "description": "true: the answer kept for this Idempotency-Key, replayed "
                                        "(the action was not performed again).", "schema": {"type": "string", "enum": ["true"]}},
                                    "X-Request-Id": h("XRequestId")},
                        "content": {"application/json": {"schema": ref("ActionResponse")}},
                        "links": {k: v for k, v in SESSION_LINKS.items() if k != "EndSession"}},
            }, {
                "400": ("The body is not valid JSON, uri (used to recover) is invalid, the body and the Hub-Session "
                        "header name different sessions (or the header is repeated), or Idempotency-Key is not one "
                        "structured-field string or token of 1 to 255 bytes.",
                        ["invalid_json", "invalid_uri", "unsafe_url", "session_mismatch", "duplicate_parameter",
                         "invalid_idempotency_key"]),
                "404": ("Unknown session (without uri), feature, action or component." + BOUND,
                        ["session_not_found", "feature_not_found", "action_not_found", "component_not_found"]),
                "415": JSON_BODY_PROBLEMS["415"],
                "422": ("Valid JSON of the wrong shape (neither session, the Hub-Session header nor uri; neither action "
                        "nor component), or an Idempotency-Key used before on this session with another body.",
                        ["invalid_body", "idempotency_key_reused"]),
                "429": ("The client made more actions than limits.actionsPerClient allows (every request counts, a "
                        "malformed one too), or stored more sessions than limits.sessionsPerClient allows (a rebuild or "
                        "a recovery by uri) (Retry-After).", ["too_many_actions", "too_many_sessions"]),
                **STATE_WRITES,
                "409": ("The state value kept changing under the action's compare-and-set (its retries ran out), or a "
                        "request with the same Idempotency-Key is still being processed.",
                        ["state_conflict", "idempotency_key_in_use"]),
                **FAILED_VIEW,
                "503": ("The state store is unavailable (state_unavailable, Retry-After: nothing was written), or its "
                        "answer to a write was lost (state_outcome_unknown, no Retry-After: the write may have happened; "
                        "retry with the same Idempotency-Key).", ["state_unavailable", "state_outcome_unknown"])},
                user=True),
        },
    },
    "/invalidate": {
        "post": {
            "operationId": "invalidateContent",
            "summary": "Invalidate content that changed at its source: caches drop it, sessions that used it re-run",
            "description": "A signed webhook (docs/INVALIDATION.md). Evicts the upstream responses, last good "
            "content, chain memo entries and renderings that used the named URLs, URL prefixes, content tags "
            "(Surrogate-Key, Cache-Tag) or features, and marks every live session that used them stale: sessions followed "
            "over SSE re-run at once (paced like config reloads) and push their new view, the others re-run on their next "
            "use. On the PostgreSQL state backend every replica applies it (through the change feed); on SQLite and "
            "memory only this process. Routed only when server.json invalidation.secrets (or HUB_INVALIDATION_SECRETS) "
            "names a secret; otherwise 404 route_not_found.",
            "parameters": [p("HubSignatureTimestamp"), p("HubSignature")] + COMMON_HEADERS,
            "requestBody": {"required": True, "content": {"application/json": {"schema": ref("InvalidationRequest")}}},
            "responses": responses({
                "202": {"description": "Accepted and applied here; published to the other replicas.",
                        "headers": UNCACHED_HEADERS,
                        "content": {"application/json": {"schema": ref("InvalidationResponse")}}},
            }, {
                **JSON_BODY_PROBLEMS,
                "401": ("Hub-Signature is missing or no MAC verifies (invalid_signature), or it verifies for a "
                        "Hub-Signature-Timestamp more than 5 minutes from the server's clock (stale_signature); "
                        "nothing changed.", ["invalid_signature", "stale_signature"]),
                "413": ("The body is over 64 KiB; nothing changed.", ["body_too_large"]),
                "422": ("Valid JSON of the wrong shape (an unknown key, a list that is not of non-empty strings, nothing "
                        "named), or more than 1,000 entries in all (too_many_entries); nothing changed.",
                        ["invalid_body", "too_many_entries"]),
                "404": ("The endpoint is off: no invalidation secret is configured.", ["route_not_found"]),
            }),
        },
    },
    "/health": {"get": {
        "operationId": "getHealth", "summary": "Liveness", "parameters": COMMON_HEADERS,
        "responses": responses({"200": {"description": "Alive.", "headers": UNCACHED_HEADERS,
                                        "content": {"application/json": {"schema": ref("Health")}}}}, {})}},
    "/ready": {"get": {
        "operationId": "getReady", "summary": "Readiness: config loaded and not draining (the state store's and identity providers' health is shown, not required)", "parameters": COMMON_HEADERS,
        "responses": responses({"200": {"description": "Ready.", "headers": UNCACHED_HEADERS,
                                        "content": {"application/json": {"schema": ref("Ready")}}}},
                               {"503": ("Draining.", ["not_ready"])})}},
    "/metrics": {"get": {
        "operationId": "getMetrics", "summary": "Prometheus text exposition (format 0.0.4)", "parameters": COMMON_HEADERS,
        "responses": responses({"200": {"description": "Metrics.", "headers": UNCACHED_HEADERS,
                                        "content": {"text/plain; version=0.0.4; charset=utf-8": {"schema": {"type": "string"}}}}}, {})}},
    "/features": {"get": {
        "operationId": "getFeatures", "summary": "Registered features",
        "description": "Cache-Control: no-cache with an ETag: the list changes with a config reload; revalidate "
        "with If-None-Match (304 while it is unchanged).",
        "parameters": [p("IfNoneMatch"), p("AcceptEncoding")] + COMMON_HEADERS,
        "responses": responses(revalidated({"description": "Features in order.", "headers": {"X-Request-Id": h("XRequestId")},
                                            "content": {"application/json": {"schema": ref("Features")}}}), {})}},
    "/preview": {"get": {
        "operationId": "getPreview",
        "summary": "The browser preview: the feature list, or with uri a page that renders that view live",
        "description": "An HTML page (inline CSS and JavaScript, no external URL) that only calls this API from the "
        "browser: GET /features, GET /view, GET /view/events, POST /action, DELETE /view. Served when "
        "server.json preview.enabled is true (the default); otherwise 404 route_not_found.",
        "parameters": [p("uriQueryPreview"), p("IfNoneMatch"), p("AcceptEncoding")] + COMMON_HEADERS,
        "responses": responses(revalidated({
            "description": "The page (Cache-Control: no-cache, with an ETag: it changes with a config reload).",
            "headers": {"Content-Security-Policy": h("ContentSecurityPolicy"), "X-Request-Id": h("XRequestId")},
            "content": {"text/html; charset=utf-8": {"schema": {"type": "string"}}}}), {
            "400": ("The query is invalid.", ["invalid_uri", "duplicate_parameter"]),
            "404": ("No feature matches the URI.", ["feature_not_found"])})}},
    "/openapi.json": {"get": {
        "operationId": "getOpenAPI", "summary": "This document",
        "parameters": [p("IfNoneMatch"), p("AcceptEncoding")] + COMMON_HEADERS,
        "responses": responses(revalidated({"description": "OpenAPI 3.1 (Cache-Control: max-age=300).",
                                            "headers": {"X-Request-Id": h("XRequestId")},
                                            "content": {"application/json": {"schema": {"type": "object"}}}}), {})}},
    "/schema/view-model.json": {"get": {
        "operationId": "getViewModelSchema", "summary": "The view-model JSON Schema (2020-12)",
        "parameters": [p("IfNoneMatch"), p("AcceptEncoding")] + COMMON_HEADERS,
        "responses": responses(revalidated({"description": "The schema (Cache-Control: max-age=300).",
                                            "headers": {"X-Request-Id": h("XRequestId")},
                                            "content": {"application/schema+json": {"schema": {"type": "object"}}}}), {})}},
    "/schema/config/{file}": {"get": {
        "operationId": "getConfigSchema", "summary": "A config file's JSON Schema (2020-12), as in docs/schema/",
        "description": "server.json for Config/server.json, feature.json for features/*.json, toggles.json, "
        "actions.json, and custom-schema.json for schemas/*.json. Editors use them through a file's \"$schema\".",
        "parameters": [{"name": "file", "in": "path", "required": True, "description": "The schema's file name.",
                        "schema": {"type": "string", "enum": sorted(config_schemas.SCHEMAS)}},
                       p("IfNoneMatch"), p("AcceptEncoding")] + COMMON_HEADERS,
        "responses": responses(revalidated({"description": "The schema (Cache-Control: max-age=300).",
                                            "headers": {"X-Request-Id": h("XRequestId")},
                                            "content": {"application/schema+json": {"schema": {"type": "object"}}}}),
                               {"404": ("No config schema by that name (or no name).",
                                        ["schema_not_found", "route_not_found"])})}},
}

URI_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[^\\u0000-\\u001f\\u007f]+$"}

API_SCHEMAS = {
    "JSONValue": {
        "description": "Any JSON value. The server's parser also requires numbers within the finite double range "
        "(integers beyond 64 bits are read as doubles; a literal that rounds to infinity is 400 invalid_json), "
        "valid Unicode strings and nesting within limits.jsonDepth. The range is not a minimum/maximum here: a "
        "decimal literal just past the bound still rounds to the largest double, so no bound states it exactly.",
        "type": ["null", "boolean", "string", "number", "array", "object"],
        "items": {"$ref": "#/components/schemas/JSONValue"},
        "additionalProperties": {"$ref": "#/components/schemas/JSONValue"},
    },
    "Problem": {
        "type": "object",
        "description": "RFC 9457 problem details with a stable code.",
        "required": ["type", "title", "status", "detail", "code"],
        "properties": {
            "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"},
            "detail": {"type": "string"}, "code": {"type": "string"},
        },
    },
    "ActionRequest": {
        "type": "object",
        "additionalProperties": False,
        "description": "Give session (here or as the Hub-Session request header) or uri, or both (uri recovers a lost "
        "session), and action or component (or both). OpenAPI cannot tie a body field to a header, so 'one of session, "
        "the header or uri' is not in this schema: without any the answer is 422 invalid_body.",
        "properties": {
            "session": {"type": "string"},
            "uri": URI_SCHEMA,
            "action": {"type": "string", "pattern": "^[^:]+:[^:]+$", "description": "namespace:name (exactly one ':')"},
            "component": {"type": "string", "description": "A component id: its target.actions are tried in order."},
            "custom": {"type": "object", "additionalProperties": ref("JSONValue"), "description": "Action data."},
        },
        "anyOf": [{"required": ["action"]}, {"required": ["component"]}],
        "examples": [{"uri": "hub:todo", "action": "todo:add", "custom": {"title": "Ship it"}}],
    },
    "InvalidationRequest": {
        "type": "object",
        "additionalProperties": False,
        "description": "What changed; at least one entry, at most 1,000 over all four lists.",
        "properties": {
            "urls": {"type": "array", "items": {"type": "string", "minLength": 1},
                     "description": "Upstream URLs, exactly as remote operations fetch them."},
            "urlPrefixes": {"type": "array", "items": {"type": "string", "minLength": 1},
                            "description": "Every upstream URL that starts with one of these."},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1},
                     "description": "Content tags: the upstream's Surrogate-Key and Cache-Tag values."},
            "features": {"type": "array", "items": {"type": "string", "minLength": 1},
                         "description": "Feature ids: the memo entries, renderings and sessions of their views."},
        },
        "examples": [{"tags": ["article-42"]}, {"urlPrefixes": ["https://cms.example.com/api/pages/"]}],
    },
    "InvalidationResponse": {
        "type": "object",
        "additionalProperties": False,
        "required": ["matched"],
        "properties": {"matched": {
            "type": "object", "additionalProperties": False, "required": ["cacheEntries", "sessions"],
            "properties": {
                "cacheEntries": {"type": "integer", "minimum": 0,
                                 "description": "Upstream responses, last good content and chain memo entries dropped here."},
                "sessions": {"type": "integer", "minimum": 0, "description": "Live sessions of this replica marked stale."},
            }}},
    },
    "ActionResponse": {
        "type": "object",
        "additionalProperties": False,
        "required": ["performed", "view"],
        "properties": {"performed": {"type": "boolean"}, "view": ref("ViewModel")},
    },
    "NextPageRequest": {
        "type": "object",
        "description": "The session, here or as the Hub-Session request header (one of them is required: 422 invalid_body without either).",
        "properties": {"session": {"type": "string"}},
        "additionalProperties": False,
    },
    "Health": {
        "type": "object", "required": ["status", "uptimeSeconds", "sessions", "version"],
        "properties": {"status": {"const": "ok"}, "uptimeSeconds": {"type": "integer", "minimum": 0},
                       "sessions": {"type": "integer", "minimum": 0}, "version": {"type": "string"}},
    },
    "Ready": {"type": "object", "required": ["status", "sessionKeys", "state"], "properties": {
        "status": {"const": "ready"},
        "sessionKeys": {"enum": ["environment", "file", "generated"],
                        "description": "Where the session-signing keys came from: HUB_SESSION_KEYS, sessions.keyFile, or a key this server generated in its data directory (replicas must not rely on it)."},
        "state": {"type": "object", "required": ["backend", "available"],
                  "description": "The state store: shown, never failing readiness (every replica shares it).",
                  "properties": {"backend": {"enum": ["memory", "sqlite", "postgres"]}, "available": {"type": "boolean"},
                                 "detail": {"const": "the state store is unavailable",
                                            "description": "Present when it is unavailable; the driver's message goes to the server's log only."},
                                 "changeFeed": {"type": "boolean", "description": "PostgreSQL: whether the change feed (LISTEN) is connected."}}},
        "identity": {
            "type": "object", "required": ["providers"],
            "description": "Present when server.json identity.jwt is set: each provider's keys, shown, never failing "
            "readiness (a provider's outage keeps the keys it had, and tokens signed with them still verify).",
            "properties": {"providers": {"type": "array", "items": {
                "type": "object", "required": ["issuer", "keys", "refreshedAt", "error"],
                "properties": {
                    "issuer": {"type": "string"},
                    "keys": {"type": "integer", "minimum": 0, "description": "Usable signature keys held (distinct kids)."},
                    "refreshedAt": {"type": ["string", "null"], "format": "date-time",
                                    "description": "When its keys were last loaded successfully; null if never."},
                    "error": {"type": ["string", "null"],
                              "description": "Why the last load failed; null when it succeeded (or none ran yet)."}}}}}}}},
    "Features": {
        "type": "object", "required": ["features"],
        "properties": {"features": {"type": "array", "items": {
            "type": "object", "required": ["id", "title", "predicate", "operations", "reload"],
            "properties": {
                "id": {"type": "string"}, "title": {"type": "string"}, "predicate": {"type": "string"},
                "operations": {"type": "array", "items": {"type": "string"}},
                "reload": {"oneOf": [{"enum": ["always", "never"]},
                                     {"type": "object", "required": ["maxAgeSeconds"],
                                      "properties": {"maxAgeSeconds": {"type": "integer"}}}]},
                "schema": {"type": "string"},
                "access": {
                    "type": "object", "required": ["require"],
                    "description": "Who may use the feature's views, as its config says; absent: anyone.",
                    "properties": {"require": {"const": "user"},
                                   "claims": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
                                              "description": "Each claim the user's token must hold one of these values of."}}},
                "toggles": {
                    "type": "array", "minItems": 1,
                    "description": "The toggles the feature's chain reads, which Hub-Toggle can force; listed only "
                    "when server.json allowToggleOverride is true (the default).",
                    "items": {"type": "object", "required": ["name", "values", "default"],
                              "properties": {"name": {"type": "string"},
                                             "values": {"type": "array", "items": {"type": "string"}},
                                             "default": {"type": "string"}}}},
            }}}},
    },
}


SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
        "description": "Authorization: Bearer <JWT> from an identity provider server.json identity.jwt names, verified "
        "on every endpoint (one that does not verify is 401 invalid_token, public endpoints too). Optional: without "
        "credentials a request is anonymous, and features with an access rule answer 401 authentication_required. A "
        "session a user opened is bound to them; GET /view/events accepts its token alone (EventSource sends no "
        "credentials). A gateway may name the user in identity.header instead (docs/SECURITY.md).",
    },
}


def openapi_document():
    schemas = dict(API_SCHEMAS)
    view_defs = openapi_components_from_view_model()
    for name, schema in view_defs.items():
        schemas[name] = schema
    schemas["ViewModel"] = dict(schemas["ViewModel"])
    schemas["ViewModel"]["externalDocs"] = {"description": "The same definitions as a standalone JSON Schema (2020-12)",
                                            "url": SCHEMA_URL}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "HubServer HTTP API",
            "version": VERSION,
            "description": "Server-driven UI: view models in Spotify HubFramework's JSON schema. Errors are RFC 9457 "
            "problem details with a stable 'code'. Every response carries X-Request-Id. The view-model schema is also "
            "served standalone at " + SCHEMA_URL + ".",
        },
        "externalDocs": {"description": "View-model JSON Schema (2020-12)", "url": SCHEMA_URL},
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "servers": [{"url": "/"}],
        # Optional everywhere: without credentials a request is anonymous (docs/SECURITY.md).
        "security": [{}, {"bearerAuth": []}],
        "paths": PATHS,
        "components": {"securitySchemes": SECURITY_SCHEMES, "schemas": schemas, "parameters": PARAMETERS, "headers": HEADERS,
                       "responses": {f"Transport{status}": transport_response(status) for status in sorted(TRANSPORT_PROBLEMS)}},
    }


# --------------------------------------------------------------------------- output


def serialize(document):
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


RESOURCES = "Sources/HubServer/Resources"


def outputs():
    """Path -> text of every file this script writes: each contract document in docs/ and, with
    the same bytes, in the HubServer target's resources (embedded in the binary by SwiftPM)."""
    documents = {
        "openapi.json": serialize(openapi_document()),
        "view-model.schema.json": serialize(VIEW_MODEL_SCHEMA),
    }
    for name, (document, _) in config_schemas.SCHEMAS.items():
        documents["schema/" + name] = serialize(document)
    result = {}
    for name, text in documents.items():
        result["docs/" + name] = text
        result[RESOURCES + "/" + name] = text
    return result


def stale_files(expected):
    """Files in the resources folder this run does not write (a config file's schema was removed)."""
    found = []
    for directory, _, names in os.walk(os.path.join(ROOT, RESOURCES)):
        for name in names:
            relative = os.path.relpath(os.path.join(directory, name), ROOT)
            if relative not in expected:
                found.append(relative)
    return sorted(found)


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for relative, text in outputs().items():
        path = os.path.join(ROOT, relative)
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current == text:
            continue
        if check:
            stale.append(relative)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            print("wrote", relative)
    for relative in stale_files(outputs()):
        if check:
            stale.append(relative)
        else:
            os.remove(os.path.join(ROOT, relative))
            print("removed", relative)
    if stale:
        print("out of date (run python3 Tools/contracts.py):", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
