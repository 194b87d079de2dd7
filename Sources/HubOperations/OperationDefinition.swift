import HubEngine
import HubModel

/// One configured content operation (DESIGN.md "Config format v1").
package struct OperationDefinition: Sendable {
    package indirect enum Kind: Sendable {
        /// `static`: the parsed document (inline `json` or `file`).
        case staticContent(JSONValue)
        case remote(RemoteOperationDefinition)
        /// `recover`: applied only when `previousError` is set; clears the error.
        case recover(JSONValue)
        /// `variant`: the toggle's value picks a list of operations, inlined at this point.
        case variant(toggle: String, variants: [String: [OperationDefinition]])
        case patch(PatchDefinition)
        /// `swift`: an operation registered by name by the embedding app.
        case swift(name: String)
    }

    package let kind: Kind
    /// Initial content (`initial`).
    package let initial: JSONValue?
    /// Actions after which this operation is rescheduled (`rescheduleOn`).
    package let rescheduleOn: [ComponentIdentifier]
    /// The kind's name, for logs and `Server-Timing` (`static`, `remote`, ...; a swift
    /// operation's registered name).
    package let name: String

    package init(kind: Kind, initial: JSONValue? = nil, rescheduleOn: [ComponentIdentifier] = [], name: String) {
        self.kind = kind
        self.initial = initial
        self.rescheduleOn = rescheduleOn
        self.name = name
    }
}

/// A `remote` operation's settings.
package struct RemoteOperationDefinition: Sendable {
    package let url: URLTemplate
    package let method: String
    package let headers: [(name: String, value: String)]
    package let timeoutMs: Int?
    /// Retries for idempotent GETs (0 = none).
    package let retries: Int
    /// Custom schema identifier; `nil` uses the feature's.
    package let schema: String?
    package let paginated: Bool
    /// Failure logs at debug level instead of warning (the error flows on either way).
    package let optional: Bool
    /// Caller request headers sent on to the upstream (`forwardHeaders`, ``ForwardedHeaders``).
    package let forwardHeaders: [String]
    /// `forwardIdentity.header`: the header that carries the verified user's subject upstream
    /// (the client's own value of it never does); `nil`: none.
    package let forwardIdentity: String?
    /// `staleIfErrorSeconds` and `staleWhileRevalidateSeconds`; unset ones follow the upstream's
    /// `Cache-Control` (``StaleContentStore``).
    package let stalePolicy: StaleContentStore.Policy

    package init(url: URLTemplate, method: String, headers: [(name: String, value: String)], timeoutMs: Int?, retries: Int, schema: String?, paginated: Bool, optional: Bool, forwardHeaders: [String], forwardIdentity: String?, stalePolicy: StaleContentStore.Policy, sendLocale: Bool = false) {
        self.url = url
        self.method = method
        self.headers = headers
        self.timeoutMs = timeoutMs
        self.retries = retries
        self.schema = schema
        self.paginated = paginated
        self.optional = optional
        self.forwardHeaders = forwardHeaders
        self.forwardIdentity = forwardIdentity
        self.stalePolicy = stalePolicy
        self.sendLocale = sendLocale
    }
    /// `sendLocale`: the request's negotiated locale goes upstream as `Accept-Language`.
    package var sendLocale = false
    /// `defaultMaxAgeSeconds`: how long a `200` that states no lifetime stays fresh
    /// (``UpstreamRequest/defaultMaxAge``); nil: never fresh, only revalidated.
    package var defaultMaxAgeSeconds: Int?
}

/// A `patch` operation's settings.
package struct PatchDefinition: Sendable {
    /// Component JSON merged into components by id; new ids are appended to the body.
    package let set: JSONObject
    /// Component ids to drop.
    package let remove: [String]
    /// Preferred indexes by component id.
    package let move: [(id: String, index: Int)]

    package init(set: JSONObject, remove: [String], move: [(id: String, index: Int)]) {
        self.set = set
        self.remove = remove
        self.move = move
    }
}

extension OperationDefinition.Kind {
    /// The `kind` as written in config.
    package var configName: String {
        switch self {
        case .staticContent: "static"
        case .remote: "remote"
        case .recover: "recover"
        case .variant: "variant"
        case .patch: "patch"
        case .swift: "swift"
        }
    }
}
