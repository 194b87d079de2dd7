import HubEngine
import HubModel

/// One configured content operation (DESIGN.md "Config format v1").
public struct OperationDefinition: Sendable {
    public indirect enum Kind: Sendable {
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

    public let kind: Kind
    /// Initial content (`initial`).
    public let initial: JSONValue?
    /// Actions after which this operation is rescheduled (`rescheduleOn`).
    public let rescheduleOn: [ComponentIdentifier]
    /// The kind's name, for logs and `Server-Timing` (`static`, `remote`, ...; a swift
    /// operation's registered name).
    public let name: String

    public init(kind: Kind, initial: JSONValue? = nil, rescheduleOn: [ComponentIdentifier] = [], name: String) {
        self.kind = kind
        self.initial = initial
        self.rescheduleOn = rescheduleOn
        self.name = name
    }
}

/// A `remote` operation's settings.
public struct RemoteOperationDefinition: Sendable {
    public let url: URLTemplate
    public let method: String
    public let headers: [(name: String, value: String)]
    public let timeoutMs: Int?
    /// Retries for idempotent GETs (0 = none).
    public let retries: Int
    /// Custom schema identifier; `nil` uses the feature's.
    public let schema: String?
    public let paginated: Bool
    /// Failure logs at debug level instead of warning (the error flows on either way).
    public let optional: Bool
}

/// A `patch` operation's settings.
public struct PatchDefinition: Sendable {
    /// Component JSON merged into components by id; new ids are appended to the body.
    public let set: JSONObject
    /// Component ids to drop.
    public let remove: [String]
    /// Preferred indexes by component id.
    public let move: [(id: String, index: Int)]
}
