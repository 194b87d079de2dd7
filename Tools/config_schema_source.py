"""JSON Schemas (2020-12) of the config files (docs/schema/), written by Tools/contracts.py.

    server.json         Config/server.json
    feature.json        Config/features/*.json
    toggles.json        Config/toggles.json
    actions.json        Config/actions.json
    custom-schema.json  Config/schemas/*.json (custom JSON schemas: declarative paths)

They state what the loader (Sources/HubConfig/) accepts, as far as JSON Schema can:
types, required keys, enums, every range (ServerSettings and its Ranges), the shape of URL
templates, origins and header names. What needs another file or the running app (a toggle
or schema name that must exist, duplicate ids, default among values, Swift names, a regular
expression's ICU dialect, sseStreams <= connections when both are set) stays with
`hub-server validate`. Tests/system/contracts/config_schemas.py checks the two agree.

Unknown keys: the loader warns and ignores them (an old server reads a newer config), except in
custom schemas, where an unknown section or field is an error. So `additionalProperties: false`
only there; elsewhere an unknown key matches UNKNOWN_KEY, which validates anything but carries
`deprecated` (an annotation in 2020-12, so validators accept the file) and VS Code's
`deprecationMessage`: editors show it as a warning, as `validate` does.
"""

ID_PREFIX = "/schema/config/"
DIALECT = "https://json-schema.org/draft/2020-12/schema"

UNKNOWN_KEY = {
    "deprecated": True,
    "deprecationMessage": "Unknown key: hub-server ignores it and `hub-server validate` warns about it (a typo?).",
}

COMMENT_KEY = {
    "type": "string",
    "description": "A note for whoever edits this file (JSON Schema's $comment), such as why a setting has its "
    "value. hub-server ignores it.",
}

SCHEMA_KEY = {
    "type": "string",
    "description": "This file's JSON Schema, for editors: a path relative to the file (\"../docs/schema/server.json\") "
    "or a URL (a running server serves them at /schema/config/NAME.json). hub-server ignores it.",
}

BYTES_MAX = 1 << 30  # ServerSettings.Ranges.bytes: 1 byte to 1 GiB
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def described(schema, description, default=None):
    schema = dict(schema)
    schema["description"] = description
    if default is not None:
        schema["default"] = default
    return schema


def obj(properties, description=None, required=(), strict=False, **extra):
    schema = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = properties
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False if strict else UNKNOWN_KEY
    schema.update(extra)
    return schema


def integer(low, high, description, default=None):
    return described({"type": "integer", "minimum": low, "maximum": high}, description, default)


def seconds(low, high, description, default=None):
    return described({"type": "number", "minimum": low, "maximum": high}, description + " In seconds.", default)


def boolean(description, default=None):
    return described({"type": "boolean"}, description, default)


def text(description, default=None, **extra):
    """A non-empty string (the loader's `string`: an empty one is an error)."""
    return described({"type": "string", "minLength": 1, **extra}, description, default)


def one_or_list(item, description, min_items=0):
    listed = {"type": "array", "items": item}
    if min_items:
        listed["minItems"] = min_items
    return {"description": description, "anyOf": [item, listed]}


def enum(values, description, default=None):
    return described({"type": "string", "enum": values}, description, default)


def root(name, title, description, properties, required=(), strict=False, **extra):
    schema = {"$schema": DIALECT, "$id": ID_PREFIX + name, "title": title, "description": description}
    schema.update(obj({"$schema": SCHEMA_KEY, "$comment": COMMENT_KEY, **properties}, required=required, strict=strict,
                      **extra))
    return schema


# --------------------------------------------------------------------------- shared patterns

# `namespace:name`: exactly one ':', neither part empty (ComponentIdentifier).
ACTION_ID = {"type": "string", "pattern": "^[^:]+:[^:]+$", "description": "An action identifier namespace:name."}

# An HTTP header name for upstream requests: no control character, space, ':' or non-ASCII.
HEADER_NAME = {"minLength": 1, "not": {"pattern": "[^!-9;-~]"}}
HEADER_VALUE = {"type": "string", "not": {"pattern": "[\\r\\n\\u0000]"}, "description": "A header value (no CR, LF or NUL)."}
HEADERS = {
    "type": "object",
    "description": "Headers sent upstream: name to value.",
    "propertyNames": HEADER_NAME,
    "additionalProperties": HEADER_VALUE,
}

# RFC 9110 token (CORS header names; a trailing '*' is a token character too).
TOKEN = {"type": "string", "minLength": 1, "not": {"pattern": "[^!#$%&'*+\\-.^_`|~0-9A-Za-z]"}}

# A serialized origin scheme://host[:port] (CORSPolicy.normalizedOrigin): ASCII, no user info,
# path, query, fragment or whitespace; an IPv6 host in brackets; a port of 0-65535.
_HOST_FIRST = "\\u0000-\\u0008\\u000e-\\u001f!\"$-.0-9;->A-Z\\]-\\u007f"
_HOST_REST = "\\u0000-\\u0008\\u000e-\\u001f!\"$-.0-9;->A-\\[\\]-\\u007f"
_BRACKETED = "\\u0000-\\u0008\\u000e-\\u001f!\"$-.0-9:;->A-\\[\\^-\\u007f"
_PORT = "(?:[0-9]{1,4}|[0-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
ORIGIN = {
    "type": "string",
    "pattern": f"^(?:\\*|[A-Za-z][A-Za-z0-9+.-]*://(?:\\[[{_BRACKETED}]*\\]|[{_HOST_FIRST}][{_HOST_REST}]*)(?::{_PORT})?)$",
    "description": "\"*\" alone, or a serialized origin scheme://host[:port] such as \"https://app.example.com\".",
}


def url_template(schemes, schemes_text, actions):
    """A URLTemplate: known placeholders only, no '}' outside one, and no placeholder before the
    scheme and authority are complete (a client never chooses the host)."""
    names = ["uri", "page", "session", "uri\\.(?:\\+?[0-9]+|-0+)", "query\\.[^}]+", "header\\.[^}]+", "user\\.sub",
             "user\\.claim\\.[^}]+", "locale"]
    if actions:
        names += ["action\\.name", "action\\.namespace"]
    placeholders = "{uri}, {uri.N}, {query.NAME}, {header.NAME}, {page}, {session}, {user.sub}, {user.claim.NAME}, {locale}" + (
        ", {action.name}, {action.namespace}" if actions else "")
    return {
        "type": "string",
        "description": f"A URL ({schemes_text}) with placeholders {placeholders}; every substitution is "
        "percent-encoded. Placeholders may not form the scheme, host or port. {locale} is the negotiated locale (one of "
        "server.json locales.supported). {user.sub} and {user.claim.NAME} are the "
        "verified user's subject and a claim named in server.json identity.claims (empty when the token lacks it); "
        + ("an anonymous session's action gets them empty." if actions else
           "an operation that uses them needs a signed-in user (401 authentication_required without one) and is "
           "memoized per user."),
        "allOf": [
            {"pattern": schemes},
            {"pattern": "^(?:[^{}]|\\{(?:" + "|".join(names) + ")\\})*$"},
            {"pattern": "^(?:[^{]*$|[^{:]*:(?!//)|[^{:]*://[^{/?#]*[/?#])"},
        ],
    }


HTTP = "^[hH][tT][tT][pP][sS]?://"
HTTP_OR_FILE = "^(?:[hH][tT][tT][pP][sS]?://|[fF][iI][lL][eE]:)"

# --------------------------------------------------------------------------- server.json

LIMITS = obj({
    "requestLineBytes": integer(64, 1_048_576, "Longest request line (414 past it).", 8192),
    "headerBytes": integer(256, 16_777_216, "Largest request head (431 past it).", 32768),
    "headerCount": integer(1, 10_000, "Most header fields in a request (431 past it).", 100),
    "bodyBytes": integer(1, BYTES_MAX, "Largest request body (413 past it).", 1_048_576),
    "jsonDepth": integer(1, 1024, "Deepest nesting of JSON in request bodies, config and content.", 64),
    "connections": integer(1, 1_000_000, "Open connections at once (503 connection_limit past it).", 10_000),
    "sseListenersPerSession": integer(1, 1000000, "Event streams one session may hold at once (429 past it).", 8),
    "sseStreams": integer(
        1, 1_000_000, "Event streams open at once across all sessions (503 past it). At most limits.connections "
        "(the default follows a lower limits.connections).", 5000),
    "sessionsPerClient": obj({
        "perSecond": described({"type": "number", "minimum": 0.001, "maximum": 1_000_000},
                               "Tokens added to a client's bucket per second.", 20),
        "burst": integer(1, 1_000_000, "Most tokens a client's bucket holds (sessions it may store at once).", 100),
    }, "New sessions one client may store (opened, rebuilt from a token, a lazy token's first use) and revocations "
       "it may record: a token bucket per client (429 too_many_sessions with Retry-After past it). The client is the "
       "peer address, or what a trusted proxy names in X-Forwarded-For (trustedProxies)."),
    "sseStreamsPerClient": integer(1, 1_000_000, "Event streams one client may hold at once (429 too_many_streams "
                                   "past it).", 32),
    "actionsPerClient": obj({
        "perSecond": described({"type": "number", "minimum": 0.001, "maximum": 1_000_000},
                               "Tokens added to a client's bucket per second.", 20),
        "burst": integer(1, 1_000_000, "Most tokens a client's bucket holds (actions it may make at once).", 60),
    }, "POST /action requests one client may make, a malformed one too: a token bucket per client (429 "
       "too_many_actions with Retry-After past it)."),
    "protectedSessionsPerClient": integer(
        1, 100_000_000, "Used sessions one client may hold, protected from eviction; its further sessions stay "
        "evictable, and its own new sessions evict them first. Default: 1% of sessions.max, at least 16."),
    "clientIPv6Prefix": integer(1, 128, "The prefix length that makes one IPv6 client for per-client limits (a host "
                                "is given a whole /64 and may use any address in it).", 64),
    "patchHistoryBytes": integer(0, 1 << 40, "Bytes the patch history of patch=json-patch listeners may keep in all "
                                 "(recent views and patches, least recently used out; at most 4 client variants per "
                                 "session; a session's entries go with its last patch listener). 0: no history, every "
                                 "listener gets full views.", 32 << 20),
}, "Request and connection limits.",
    # sseStreams <= connections: with connections unset, that is its default (10000); when both
    # are set JSON Schema cannot compare them, and `validate` does.
    **{"if": {"not": {"required": ["connections"]}},
       "then": {"properties": {"sseStreams": {"maximum": 10_000}}}})

TIMEOUTS = obj({
    "headerSeconds": seconds(0.001, 3600, "Deadline for a request head (408 header_timeout).", 10),
    "bodySeconds": seconds(0.001, 3600, "Deadline for a request body (408 body_timeout).", 30),
    "idleSeconds": seconds(0.001, 86_400, "How long a kept-alive connection may idle.", 60),
    "operationSeconds": seconds(0.001, 3600, "Deadline of one operation of a chain (504 operation_timeout).", 2),
    "drainSeconds": seconds(0.001, 3600, "On SIGTERM, how long in-flight requests may take to finish.", 20),
    "drainDelaySeconds": seconds(
        0, 300, "On SIGTERM, how long the server keeps serving with /ready at 503 before it closes its "
        "listener (the time a balancer needs to notice; 5-10 s in Kubernetes).", 0),
    "streamSeconds": seconds(
        0, 86_400, "How long one event stream may stay open: each ends after 80-100% of it and the client "
        "reconnects (with Last-Event-ID) to the session's replica of the moment; 0: no limit.", 600),
}, "Deadlines.")

SESSIONS = obj({
    "max": integer(1, 100_000_000, "Sessions kept in memory (a segmented LRU evicts past it; an evicted "
                   "session's token rebuilds it).", 100_000),
    "maxBytes": integer(1 << 20, 1 << 40, "Most bytes the live sessions may hold, as each estimates it (its view's "
                        "JSON and kept snapshots, about 4 KB besides; hub_sessions_bytes): past it, sessions never "
                        "used again are evicted as past max, never a used one or one followed over SSE. Absent: no "
                        "byte cap."),
    "idleSeconds": seconds(0.001, 2_592_000, "How long an unused session is kept.", 1800),
    "maxPages": integer(0, 100_000, "Next pages one session may load.", 100),
    "tokenMaxAgeSeconds": seconds(60, 31_536_000, "How long a session token is accepted after it was issued "
                                  "(404 session_not_found past it).", 604_800),
    "keyFile": text("A file of session-signing keys, one per line, the signing key first (hex or base64url, 32 bytes "
                    "or more each; a Kubernetes Secret), relative to the config directory. HUB_SESSION_KEYS wins over "
                    "it; with neither, the server generates a key in dataDirectory."),
}, "Session store and tokens (docs/SESSIONS.md).")

CACHES = obj({
    "renderBytes": integer(1, BYTES_MAX, "Memory for rendered views (JSON, gzip) shared across requests.", 64 << 20),
    "memoBytes": integer(1, BYTES_MAX, "Memory for memoized chain results.", 64 << 20),
    "memoEntries": integer(0, 1_000_000, "Memoized chain results kept at most (0 turns the memo off).", 1024),
}, "Shared caches, bounded by bytes (estimated from the JSON size of what they hold).")

UPSTREAM = obj({
    "timeoutMs": integer(1, 3_600_000, "Total time of one upstream request, in milliseconds.", 2000),
    "connectTimeoutMs": integer(1, 3_600_000, "Connection set-up time, in milliseconds.", 500),
    "maxConnectionsPerHost": integer(1, 10_000, "Connections to one upstream host at once.", 32),
    "maxResponseBytes": integer(1, BYTES_MAX, "Largest upstream response body.", 8_388_608),
    "cacheEntries": integer(0, 10_000_000, "Upstream responses kept by the HTTP cache (Cache-Control, ETag).", 10_000),
}, "Upstream defaults for remote operations and actions.")

GZIP = obj({
    "minBytes": integer(0, BYTES_MAX, "Smallest body that is compressed.", 1024),
    "level": integer(0, 9, "zlib compression level.", 6),
}, "Response compression (Accept-Encoding: gzip).")

COMPONENTS = obj({
    "defaultNamespace": text("Namespace of a component model that names none.", "default"),
    "defaultName": text("Name of a component model that names none.", "row"),
    "defaultCategory": text("Category of a component model that names none.", "row"),
    "killSwitches": described({"type": "array", "maxItems": 1000, "items": obj({
        "component": described({"type": "string", "pattern": "^[^:]+:[^:]+$"}, "The component (namespace:name) to switch off."),
        "client": text("The platform of Hub-Client (platform/semver), compared case-insensitively.",
                       pattern="^[^/ \t]+$"),
        "below": text("Clients of that platform below this version (MAJOR[.MINOR[.PATCH]][-prerelease]) get the "
                      "component's fallback.",
                      pattern="^[0-9]{1,9}(\\.[0-9]{1,9}){0,2}(-[^+]+)?(\\+.*)?$", maxLength=64),
    }, "One rule.", required=["component", "client", "below"])},
        "Components switched off for client versions: a client whose Hub-Client is that platform below that version "
        "gets the component's fallback (hub_component_fallbacks_total{reason=\"kill_switch\"}). A reload applies "
        "new rules to live sessions.", []),
}, "What a component without a component id becomes, and kill switches.")

LOG = obj({
    "level": enum(["debug", "info", "warning", "error"], "Lowest level logged (HUB_LOG_LEVEL overrides).", "info"),
    "format": enum(["json", "text"], "Log line format (HUB_LOG_FORMAT overrides).", "json"),
    "access": obj({
        "mode": enum(["all", "errors", "sampled", "off"], "Which requests write an access log line: all; errors (status "
                     "400 and above, and requests slower than slowMs); sampled (errors plus sampleRatio of the rest); "
                     "off (metrics still count every request).", "errors"),
        "slowMs": integer(0, 3_600_000, "Requests at least this slow are logged in errors and sampled modes.", 1000),
        "sampleRatio": described({"type": "number", "minimum": 0, "maximum": 1},
                                 "Fraction of the other requests logged in sampled mode.", 0.01),
    }, "The access log."),
}, "Logging (to standard error).")

CORS = obj({
    "origins": {
        "description": "Required. Exact serialized origins (scheme and host compared case-insensitively, a default "
        "port written or not), or \"*\" alone for public read-only use.",
        "anyOf": [ORIGIN, {"type": "array", "minItems": 1, "items": ORIGIN}],
    },
    "allowCredentials": boolean("Whether cookies and HTTP authentication may accompany requests (not with \"*\").", False),
    "allowedHeaders": one_or_list(TOKEN, "Request header names a page may send; an entry ending in * allows every "
                                  "name with that prefix (Hub-* covers the Hub- headers). Default: Content-Type, Hub-*, "
                                  "If-None-Match, Last-Event-ID, traceparent, X-Request-Id."),
    "exposedHeaders": one_or_list(TOKEN, "Response header names a script may read. Default: Hub-Session, ETag, "
                                  "Server-Timing, Hub-Version, X-Request-Id, Retry-After, Hub-Rebuilt."),
    "maxAgeSeconds": integer(0, 86_400, "Access-Control-Max-Age of preflight answers.", 600),
}, "Cross-origin access for web apps (absent: no CORS headers). docs/CONFIG.md \"Web clients (CORS)\".",
    required=["origins"],
    # "*" stands alone and without credentials.
    **{"if": {"required": ["origins"], "properties": {"origins": {"anyOf": [
        {"const": "*"}, {"type": "array", "contains": {"const": "*"}}]}}},
       "then": {"properties": {"origins": {"anyOf": [{"type": "string"}, {"type": "array", "maxItems": 1}]},
                               "allowCredentials": {"const": False}}}})

RELOAD = obj({
    "watch": boolean("Watch the config directory (inotify) and reload it on change; SIGHUP always reloads. false "
                     "for production setups that reload only on SIGHUP (HUB_CONFIG_WATCH=0 and serve --no-watch too).",
                     True),
    "debounceMs": integer(0, 10_000, "How long writes must have been quiet before a reload, in milliseconds.", 100),
    "maxConcurrentReruns": integer(1, 10_000, "Chains a reload re-runs at once: sessions followed over SSE re-run "
                                   "through a pool this size, the others on their next request. Default: "
                                   "upstream.maxConnectionsPerHost.", 32),
}, "Config hot reload (docs/CONFIG.md \"Live reload\"): the whole directory is validated and swapped in atomically; an "
   "invalid config is refused and the old one keeps serving.")

PREVIEW = obj({
    "enabled": boolean("Serve GET /preview, the browser preview of every feature (off: 404). A change needs a restart.",
                       True),
}, "The browser preview (docs/PREVIEW.md).")

INVALIDATION = obj({
    "secrets": described({"type": "array", "items": {"type": "string", "minLength": 32}},
                         "The secrets POST /invalidate requests are signed with (Hub-Signature: sha256=<hex HMAC-SHA256 of "
                         "\"<Hub-Signature-Timestamp>.<body>\">), each used as its UTF-8 bytes and at least 32 bytes long; "
                         "several during a rotation (any one verifies). None (the default): the endpoint is off (404). "
                         "HUB_INVALIDATION_SECRETS (comma-separated) replaces them. A change needs a restart.", []),
}, "Signed invalidation webhooks (docs/INVALIDATION.md, docs/SECURITY.md \"Signed invalidations\").")

DEBUG = obj({
    "explain": boolean("Answer GET /view?explain=1 with how each operation made the view (off: 400 "
                       "explain_disabled). A change needs a restart.", False),
}, "Debugging aids (docs/API.md \"Explain mode\").")

STATE = obj({
    "backend": enum(["memory", "sqlite", "postgres"], "Where operations' and actions' state lives: memory (ends "
                    "with the process), sqlite (one file in the data directory: survives restarts of one node), "
                    "postgres (shared by replicas, with a change feed). HUB_STATE_BACKEND overrides.", "sqlite"),
    "path": text("The SQLite file, relative to the data directory.", "state.sqlite3"),
    "url": text("The PostgreSQL connection string (HUB_STATE_URL overrides; keep it in a Secret)."),
    "poolSize": integer(1, 256, "PostgreSQL connections at most.", 4),
    "maxValueBytes": integer(1, 16 << 20, "Largest state value, in bytes of JSON: a bigger write is 413 "
                             "state_too_large and changes nothing.", 65536),
    "maxSessionBytes": integer(1, 1 << 30, "Most bytes of JSON over all of one session's values: a write that would "
                               "pass it is 413 state_too_large and changes nothing.", 262144),
    "maxSubjectBytes": integer(1, 1 << 30, "Most bytes of JSON over all values of one subject scope: a write that "
                               "would pass it is 413 state_too_large and changes nothing.", 1048576),
    "onReadError": enum(["fail", "serve-without-state"], "A read when the store is unavailable: fail the operation "
                        "(503 state_unavailable), or serve the view without the state.", "fail"),
}, "The state store (docs/CONFIG.md \"State\").")

IDENTITY_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

IDENTITY_DEFS = {
    "JWTProvider": obj({
        "issuer": text("The exact iss of this provider's tokens: a token's iss picks its provider."),
        "audiences": one_or_list({"type": "string"}, "Required. A token's aud (a string or a list) must name one of "
                                 "these, such as \"hubserver\".", min_items=1),
        "jwks": text("Where the provider's public keys come from: an http(s) JWKS URL; file:PATH, a JWKS file "
                     "relative to the config directory; \"discover\", OpenID Connect discovery (ISSUER/.well-known/"
                     "openid-configuration, then its jwks_uri); or \"dev\", the development issuer (an Ed25519 key the "
                     "server makes in dataDirectory; never beside another provider, never in production).",
                     pattern="^(?:dev|discover|file:[\\s\\S]*|https?://[\\s\\S]*)$"),
        "algorithms": {**one_or_list(enum(IDENTITY_ALGORITHMS, "A JWS algorithm."), "The alg values accepted: "
                                     "asymmetric ones only (never none or an HMAC algorithm).", min_items=1),
                       "default": ["RS256", "ES256", "EdDSA"]},
        "leewaySeconds": integer(0, 300, "Clock skew allowed on exp, nbf and iat, in seconds.", 60),
        "jwksRefreshSeconds": integer(
            10, 86_400, "Seconds between fetches of the keys. A token naming an unknown kid fetches them at once, at most "
            "once per 30 s; a failed fetch keeps the last good keys (/ready shows its error).", 300),
    }, "One identity provider whose bearer JWTs are verified (docs/SECURITY.md).",
        required=["issuer", "audiences", "jwks"]),
    "IdentityHeader": obj({
        "name": described(TOKEN, "The header, such as X-User-Id or X-Auth-Request-User."),
    }, "A header a gateway sets to the user it verified. Believed only from a peer in trustedProxies (from any other "
       "peer: 400 untrusted_identity); a bearer token wins over it.", required=["name"]),
}

IDENTITY = obj({
    "jwt": {
        "description": "Bearer JWTs (Authorization: Bearer) verified in process: one provider, or a list of them (a "
        "token's iss picks its provider; issuers unique). A token that does not verify is 401 invalid_token on every "
        "endpoint.",
        "anyOf": [{"$ref": "#/$defs/JWTProvider"},
                  {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/JWTProvider"}}],
        # The development issuer stands alone.
        "if": {"type": "array", "contains": {"type": "object", "required": ["jwks"],
                                             "properties": {"jwks": {"const": "dev"}}}},
        "then": {"maxItems": 1},
    },
    "header": {"$ref": "#/$defs/IdentityHeader", "description": "A header a trusted gateway sets to the user it verified."},
    "claims": {**one_or_list({"type": "string"}, "The token claims operations may read (context.user.claims, "
                             "{user.claim.NAME}); access rules read every claim regardless."), "default": []},
}, "Who the user is (docs/SECURITY.md): bearer JWTs verified against each provider's keys, a header a trusted gateway "
   "sets, or neither (every request anonymous). Features require a user with \"access\".")

# A BCP 47 language tag as LocaleSettings.isLanguageTag reads it.
LANGUAGE_TAG = {"type": "string", "maxLength": 35,
                "pattern": "^(?:[A-Za-z]{2,3}|[A-Za-z]{5,8})(?:-[A-Za-z0-9]{1,8})*$"}
LOCALES = obj({
    "supported": {**one_or_list(LANGUAGE_TAG, "The language tags the server speaks (en, de, fr-CA), each once "
                                "(compared case-insensitively); at most 100.", min_items=1)},
    "default": described(LANGUAGE_TAG, "The locale answered when neither Hub-Locale nor Accept-Language names a "
                         "supported one; one of supported (default: the first)."),
}, "The languages the server speaks (docs/LOCALIZATION.md): each request's locale is Hub-Locale when supported, else "
   "RFC 4647 lookup over Accept-Language, else the default; views carry Content-Language. Without it no locale is "
   "negotiated.", required=["supported"])
LOCALES["properties"]["supported"]["anyOf"][1]["maxItems"] = 100

SERVER = root(
    "server.json", "HubServer server.json",
    "Listen address, limits, timeouts, sessions, caches, upstream defaults, compression, component defaults, log, "
    "CORS, hot reload, the browser preview, debugging aids, the state store, identity. Every key is optional; the defaults are shown. HUB_HOST, HUB_PORT, HUB_LOG_LEVEL, "
    "HUB_LOG_FORMAT, HUB_CONFIG_WATCH and HUB_DATA_DIR override their keys; HUB_SESSION_KEYS sets the session keys.",
    {
        "host": text("Listen address (HUB_HOST and serve --host override it): 127.0.0.1, loopback only, unless set; 0.0.0.0 for every interface.", "127.0.0.1"),
        "port": integer(0, 65535, "Listen port; 0 picks a free one (HUB_PORT and serve --port override it).", 8080),
        "connectionBalancing": enum(
            ["idle-first", "round-robin"],
            "Which event loop takes a new connection: idle-first, a loop waiting for work (as nginx's workers do; "
            "light load gathers on few loops, and a loop held up by a slow handler takes no new client); "
            "round-robin, each loop in turn (the same number of connections on each, for many long-lived event "
            "streams opened at once). Needs a restart.", "idle-first"),
        "limits": LIMITS,
        "timeouts": TIMEOUTS,
        "sessions": SESSIONS,
        "caches": CACHES,
        "upstream": UPSTREAM,
        "gzip": GZIP,
        "components": COMPONENTS,
        "log": LOG,
        "allowToggleOverride": boolean("Whether the Hub-Toggle request header may force toggle values (for QA).", True),
        "cors": CORS,
        "reload": RELOAD,
        "preview": PREVIEW,
        "debug": DEBUG,
        "state": STATE,
        "dataDirectory": text("Where the server keeps what it makes itself (a generated session key, the SQLite state), relative to the "
                              "working directory (HUB_DATA_DIR overrides it).", ".hub-data"),
        "trustedProxies": described({"type": "array", "items": {"type": "string", "pattern": "^[0-9A-Fa-f.:]+(?:/[0-9]{1,3})?$"}},
                                    "Proxies (IP addresses or CIDR networks) whose X-Forwarded-For names the client "
                                    "for per-client limits, and whose identity.header names the user; nothing else "
                                    "from a client is trusted.", []),
        "identity": IDENTITY,
        "locales": LOCALES,
        "invalidation": INVALIDATION,
    }, **{"$defs": IDENTITY_DEFS})

# --------------------------------------------------------------------------- features/*.json

OPERATION_KINDS = ["static", "remote", "recover", "variant", "patch", "swift"]

COMMON_OPERATION = {
    "initial": described({"type": ["object", "array"]},
                         "The operation's initial content (GET /view/initial): view JSON, or a list of body components."),
    "rescheduleOn": one_or_list(ACTION_ID, "Actions (namespace:name) after which this operation runs again, "
                                "performed or vetoed."),
}

CONTENT = {
    "json": described({"type": ["object", "array"]}, "Inline content in the default schema: view JSON (an object) or "
                      "a list of body components."),
    "file": text("Content in a file, relative to the config directory (no leading /, no .. segment): view JSON or a "
                 "list of body components.", pattern="^(?!/)(?!(?:[\\s\\S]*/)?\\.\\.(?:/|$))"),
}

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]


def case_insensitive(word):
    return "".join(f"[{c.upper()}{c.lower()}]" for c in word)


METHOD = {
    "description": "HTTP method (any case).",
    "default": "GET",
    "anyOf": [{"enum": METHODS},
              {"type": "string", "pattern": "^(?:" + "|".join(case_insensitive(m) for m in METHODS) + ")$"}],
}


GET_ONLY = {"type": "string", "pattern": "^" + case_insensitive("GET") + "$"}

# forwardHeaders: caller request headers sent upstream. Never hop-by-hop headers, Host, the
# session token or the trace context (ForwardedHeaders.refused); Cookie only with forwardCookies.
REFUSED_FORWARD = ["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te",
                   "trailer", "transfer-encoding", "upgrade", "host", "content-length", "hub-session", "traceparent",
                   "tracestate"]
FORWARD_NAME = {"type": "string", "minLength": 1, "allOf": [
    {"not": {"pattern": "[^!-9;-~]"}},
    {"not": {"pattern": "^(?:" + "|".join(case_insensitive(name) for name in REFUSED_FORWARD) + ")$"}}]}
COOKIE = {"type": "string", "pattern": "^" + case_insensitive("cookie") + "$"}
FORWARDING = {
    "forwardHeaders": {**one_or_list(FORWARD_NAME, "Caller request headers sent on to the upstream (e.g. "
                                     "Authorization): such a chain is never memoized or cached across callers. Not "
                                     "hop-by-hop headers, Host, Hub-Session or the trace context; Cookie only with "
                                     "forwardCookies."), },
    "forwardCookies": boolean("Allows Cookie in forwardHeaders (every cookie the caller holds for this server).",
                              False),
}
FORWARDING["forwardHeaders"]["anyOf"][1]["maxItems"] = 16
FORWARDING["forwardIdentity"] = obj({
    "header": described({"type": "string", "minLength": 1, "allOf": FORWARD_NAME["allOf"] + [{"not": COOKIE}]},
                        "The header, such as X-User-Id: not Cookie, hop-by-hop headers, Host, Hub-Session or the trace "
                        "context, and not also in forwardHeaders."),
}, "Sends the verified user's subject upstream in this header, whatever the client sent in it. An operation with it "
   "needs a signed-in user (401 authentication_required without one) and is memoized per user; an anonymous "
   "session's remote action sends no such header.", required=["header"])
COOKIE_ONLY_WHEN_ALLOWED = {
    "if": {"not": {"required": ["forwardCookies"], "properties": {"forwardCookies": {"const": True}}}},
    "then": {"properties": {"forwardHeaders": {"not": {"anyOf": [COOKIE, {"type": "array", "contains": COOKIE}]}}}},
}


def operation(kind, description, properties, required=(), **extra):
    properties = {"kind": {"const": kind, "description": description}, **properties, **COMMON_OPERATION}
    return obj(properties, description, required=["kind", *required], **extra)


OPERATIONS_DEFS = {
    "Operation": {
        "type": "object",
        "description": "One operation of the content loading chain; its kind decides its other keys.",
        "required": ["kind"],
        "properties": {"kind": enum(OPERATION_KINDS, "static: content written in config; remote: an upstream "
                                    "(http, https or file); recover: content applied only when the previous operation "
                                    "failed; variant: operations picked by a toggle; patch: set, remove or move "
                                    "components; swift: an operation the embedding app registered.")},
        "allOf": [{"if": {"required": ["kind"], "properties": {"kind": {"const": kind}}},
                   "then": {"$ref": f"#/$defs/{kind.capitalize()}Operation"}} for kind in OPERATION_KINDS],
    },
    "StaticOperation": operation(
        "static", "Content written in config: json (inline) or file.", CONTENT,
        oneOf=[{"required": ["json"]}, {"required": ["file"]}]),
    "RecoverOperation": operation(
        "recover", "Applies its content only when the previous operation failed, and clears the error.", CONTENT,
        oneOf=[{"required": ["json"]}, {"required": ["file"]}]),
    "RemoteOperation": operation("remote", "Content from an upstream: a view object or a list of body components "
                                 "(in the feature's or the operation's schema).", {
        "url": url_template(HTTP_OR_FILE, "http://, https://, file:// or file:path relative to the config directory",
                            actions=False),
        "method": METHOD,
        "headers": HEADERS,
        "timeoutMs": integer(1, 3_600_000, "This upstream's total time in milliseconds (default: upstream.timeoutMs).",
                             None),
        "retries": integer(0, 5, "Retries with exponential backoff; GET only.", 0),
        "schema": text("The custom schema (schemas/NAME.json) the body is read with; \"default\" for the default "
                       "schema."),
        "paginated": boolean("Fetched again for each next page, with {page} 1, 2, ...", False),
        "optional": boolean("On failure, log at a lower level (the error flows on as previousError either way).",
                            False),
        **FORWARDING,
        "sendLocale": boolean("Sends the request's negotiated locale upstream as Accept-Language (needs server.json "
                              "locales; not with Accept-Language in forwardHeaders); caches stay shared per locale.",
                              False),
        "staleIfErrorSeconds": integer(
            0, 604_800, "Seconds past freshness the last good content stands in for a failing upstream (5xx, refused, "
            "timeout, unreadable body), with a Hub-Stale header; wins over the upstream's stale-if-error; 0 is off. "
            "GET only.", None),
        "staleWhileRevalidateSeconds": integer(
            0, 604_800, "Seconds past freshness the last good content is served at once while one background refresh "
            "goes upstream; wins over the upstream's stale-while-revalidate; 0 is off. GET only.", None),
        "defaultMaxAgeSeconds": integer(
            0, 604_800, "Seconds a 200 response that states no lifetime of its own (no max-age, s-maxage or Expires; "
            "not no-cache) stays fresh, so its view can be memoized and the upstream is not asked again meanwhile; "
            "without it (or 0) such a response is never fresh. GET only; not with forwardHeaders.", None),
    }, required=["url"],
        allOf=[
            {"if": {"required": ["retries"], "properties": {"retries": {"type": "integer", "minimum": 1}}},
             "then": {"properties": {"method": GET_ONLY}}},
            {"if": {"anyOf": [{"required": ["staleIfErrorSeconds"]}, {"required": ["staleWhileRevalidateSeconds"]}]},
             "then": {"properties": {"method": GET_ONLY}}},
            {"if": {"required": ["defaultMaxAgeSeconds"]},
             "then": {"properties": {"method": GET_ONLY}, "not": {"required": ["forwardHeaders"]}}},
            COOKIE_ONLY_WHEN_ALLOWED,
        ]),
    "PatchOperation": operation("patch", "Changes components by id: set, then remove, then move.", {
        "set": {"type": "object", "description": "Component JSON merged into the component with that id (an id not "
                "present is appended to the body).", "additionalProperties": {"type": "object"}},
        "remove": one_or_list({"type": "string"}, "Component ids to drop."),
        "move": {"type": "object", "description": "Preferred index per component id.",
                 "additionalProperties": {"type": "integer", "minimum": 0}},
    }, anyOf=[{"required": ["set"], "properties": {"set": {"minProperties": 1}}},
              {"required": ["remove"], "properties": {"remove": {"anyOf": [{"type": "string"}, {"minItems": 1}]}}},
              {"required": ["move"], "properties": {"move": {"minProperties": 1}}}]),
    "VariantOperation": operation("variant", "The toggle's value picks a list of operations, inlined here.", {
        "toggle": text("A toggle of toggles.json."),
        "variants": {"type": "object", "description": "Operations per toggle value (each key one of its values).",
                     "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/Operation"}}},
    }, required=["toggle", "variants"]),
    "SwiftOperation": operation("swift", "An operation the embedding app registered.", {
        "name": text("The name it was registered under (SwiftExtensions.registerOperation)."),
    }, required=["name"]),
}

MATCH = obj({
    "root": text("Segment-aware prefix: the root followed by the end, ':', '/', '?' or '#' (hub:home matches "
                 "hub:home:x, not hub:homework)."),
    "uri": one_or_list({"type": "string"}, "Exact view URIs (the URI's query and fragment are ignored).", min_items=1),
    "pattern": text("A regular expression (ICU) that must match the whole view URI, query included.", format="regex"),
    "exclude": one_or_list({"type": "string"}, "Exact view URIs this feature does not serve, compared like uri: without query and fragment (an entry with a query turns away the URI without it too, and is a warning at load)."),
}, "Which view URIs this feature serves: exactly one of root, uri or pattern.", required=(),
    oneOf=[{"required": ["root"]}, {"required": ["uri"]}, {"required": ["pattern"]}])

FEATURE = root(
    "feature.json", "HubServer feature (Config/features/NAME.json)",
    "One feature: which view URIs it serves and the chain of operations that builds their view. Features are "
    "tried in order (then file name); the first that matches serves.",
    {
        "id": text("The feature id (unique across features)."),
        "title": text("The feature title (the view title when the content sets neither header nor title)."),
        "titles": {"type": "object", "description": "Localized titles by language tag (Accept-Language).",
                   "additionalProperties": {"type": "string", "minLength": 1}},
        "order": integer(INT64_MIN, INT64_MAX, "Position among features (ties by file name).", 0),
        "match": MATCH,
        "schema": text("The custom schema (schemas/NAME.json) this feature's remote content is read with; "
                       "\"default\" for the default schema.", "default"),
        "reload": {
            "description": "When GET /view?session= re-runs the chain: always, never, or once the view is older than "
            "maxAgeSeconds.",
            "default": "always",
            "anyOf": [{"enum": ["always", "never"]},
                      obj({"maxAgeSeconds": seconds(0.001, 31_536_000, "Age after which the chain re-runs.")},
                          required=["maxAgeSeconds"])],
        },
        "actionHandler": obj({"veto": one_or_list(ACTION_ID, "Actions (namespace:name) this feature refuses: "
                                                  "answered performed: false, still shown to rescheduleOn.")},
                             "How this feature handles actions."),
        "operations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Operation"},
                       "description": "The chain, in order."},
        "access": obj({
            "require": {"const": "user", "description": "Required: \"user\", a verified user (omit access for a "
                        "public feature)."},
            "claims": {"type": "object", "description": "Claims the user's token must hold: each named claim one of "
                       "its listed values (an array claim: any member). A user named by identity.header has no claims.",
                       "additionalProperties": one_or_list({"type": "string"}, "The values that pass.", min_items=1)},
        }, "Who may use this feature's views, actions, pages and event streams (docs/SECURITY.md): without a user "
           "401 authentication_required, without the claims 403 insufficient_claims. Absent: anyone.",
            required=["require"]),
    },
    required=["id", "title", "match", "operations"],
    **{"$defs": OPERATIONS_DEFS})

# --------------------------------------------------------------------------- toggles.json

TOGGLE = obj({
    "values": one_or_list({"type": "string"}, "Required. The toggle's values.", min_items=1),
    "default": text("Required. The value without an override or rollout: one of values."),
    "rollout": {"type": "object", "description": "Percentage of clients per value (each key one of values; at most "
                "100 in all), bucketed by the hashed key.",
                "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 100}},
    "key": text("What the rollout hashes, stable per client: header:NAME or query:NAME.",
                pattern="^(?:header|query):[\\s\\S]"),
}, "A toggle. Its value comes from a Hub-Toggle override (unless allowToggleOverride is false), else the rollout "
   "bucket of the hashed key, else the default.", required=["values", "default"])

TOGGLES = root(
    "toggles.json", "HubServer toggles.json",
    "Feature toggles by name, with percentage rollout; a variant operation picks its operations by a toggle's value.",
    {}, additionalProperties=TOGGLE)

# --------------------------------------------------------------------------- actions.json

ACTION_KINDS = {
    "remote": obj({
        "kind": {"const": "remote"},
        "url": url_template(HTTP, "http:// or https://", actions=True),
        "timeoutMs": integer(1, 3_600_000, "Total time in milliseconds (default: upstream.timeoutMs).", None),
        "headers": HEADERS,
        **FORWARDING,
    }, "POSTs {action, viewURI, component, custom, session, trigger} as JSON: 2xx means performed, 4xx not performed, "
       "5xx or a timeout answers 502/504.", required=["kind", "url"], allOf=[COOKIE_ONLY_WHEN_ALLOWED]),
    "swift": obj({
        "kind": {"const": "swift"},
        "name": text("The name the embedding app registered the factory under (registerActionFactory)."),
    }, "An action factory the embedding app registered.", required=["kind", "name"]),
}

ACTION = {
    "type": "object",
    "description": "How the actions of this namespace (namespace:name) are performed.",
    "required": ["kind"],
    "properties": {"kind": enum(list(ACTION_KINDS), "remote: POST to an upstream; swift: a registered factory.")},
    "allOf": [{"if": {"required": ["kind"], "properties": {"kind": {"const": kind}}}, "then": schema}
              for kind, schema in ACTION_KINDS.items()],
}

ACTIONS = root(
    "actions.json", "HubServer actions.json",
    "Action namespaces: one entry per namespace (the hub namespace is built in: hub:reload, hub:next-page).",
    {}, propertyNames={"minLength": 1, "not": {"anyOf": [{"pattern": ":"}, {"const": "hub"}]}},
    additionalProperties=ACTION)

# --------------------------------------------------------------------------- schemas/*.json

SECTION_FIELDS = {
    "view": ["id", "title", "header", "body", "overlays", "custom"],
    "component": ["id", "group", "component.id", "component.category", "text.title", "text.subtitle",
                  "text.accessory", "text.description", "images.main", "images.background", "images.custom",
                  "images.icon", "target", "metadata", "logging", "custom", "children"]
    + [f"images.{image}.{key}" for image in ("main", "background") for key in ("uri", "placeholder", "local", "custom")]
    + [f"target.{key}" for key in ("uri", "view", "actions", "custom")],
    "image": ["uri", "placeholder", "local", "custom"],
    "target": ["uri", "view", "actions", "custom"],
}

SECTION_TEXT = {
    "view": "Paths to the view's fields.",
    "component": "Paths to a component's fields, evaluated on each component; images.main.uri, target.uri and the "
    "like set one field of the image or target directly.",
    "image": "Paths to an image's fields, evaluated on each image.",
    "target": "Paths to a target's fields, evaluated on each target.",
}

PATH_DEFS = {
    "Path": {
        "description": "A path into the upstream JSON: a list of steps (a key, \"*\" for each element of an array, or "
        "{\"first\": [path, ...]}), or one {\"first\": [...]} step.",
        "anyOf": [{"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/First"}]}},
                  {"$ref": "#/$defs/First"}],
    },
    "First": {
        "type": "object",
        "description": "The first path that yields a value.",
        "required": ["first"],
        "properties": {"first": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Path"}}},
        "additionalProperties": False,
    },
}

CUSTOM_SCHEMA = root(
    "custom-schema.json", "HubServer custom JSON schema (Config/schemas/NAME.json)",
    "How upstream JSON maps onto the model: for each field, a path. Fields not mapped keep the default schema's keys; "
    "output is always the default schema. An unknown section or field is an error.",
    {
        "id": described({"type": "string", "minLength": 1, "not": {"const": "default"}},
                        "The schema's name as features and operations refer to it (default: the file name without "
                        ".json; \"default\" is the built-in schema's)."),
        **{section: obj({field: {"$ref": "#/$defs/Path"} for field in fields}, SECTION_TEXT[section], strict=True)
           for section, fields in SECTION_FIELDS.items()},
    },
    strict=True, **{"$defs": PATH_DEFS})

# File name in docs/schema/ -> schema; the config files each describes.
SCHEMAS = {
    "server.json": (SERVER, "server.json"),
    "feature.json": (FEATURE, "features/*.json"),
    "toggles.json": (TOGGLES, "toggles.json"),
    "actions.json": (ACTIONS, "actions.json"),
    "custom-schema.json": (CUSTOM_SCHEMA, "schemas/*.json"),
}
