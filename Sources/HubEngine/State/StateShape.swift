import HubModel

/// The shape version of a state value, and how to bring an older one up to date. A value
/// written with an older shape is passed to `migrate` on read; `nil` (or no `migrate`) drops
/// it: the read sees no value, and the engine counts it (`hub_state_operations_total{op="migrate"}`).
public struct StateShape: Sendable {
    /// The version current code writes (1 for the first shape).
    public let version: Int
    /// Turns a value of shape `from` (older than ``version``) into this shape, or `nil` to drop it.
    public let migrate: (@Sendable (_ from: Int, _ value: JSONValue) -> JSONValue?)?

    public init(version: Int, migrate: (@Sendable (_ from: Int, _ value: JSONValue) -> JSONValue?)? = nil) {
        self.version = version
        self.migrate = migrate
    }

    /// Shape 1, nothing to migrate.
    public static let initial = StateShape(version: 1)
}

/// A value read from the store, with the version a write must name to replace it.
public struct StateValue: Sendable, Equatable {
    public let value: JSONValue
    public let version: Int64

    public init(value: JSONValue, version: Int64) {
        self.value = value
        self.version = version
    }
}

/// What happens to a view when the store cannot be read (`state.onReadError`).
public enum StateReadFailurePolicy: String, Sendable {
    /// The operation fails (and with it the view, when it is the last one): 503 `state_unavailable`.
    case fail
    /// The read answers "no value" and the view is served without the state (counted).
    case serveWithoutState = "serve-without-state"
}

/// The engine's state settings (`server.json` `"state"`).
public struct StateSettings: Sendable {
    /// Largest value's JSON, in bytes (default 64 KiB): a bigger write is `tooLarge` and changes nothing.
    public var maxValueBytes: Int
    /// Most bytes of JSON over all of one session's values (default 256 KiB): a write past it is
    /// `tooLarge` and changes nothing (``StateQuota``).
    public var maxSessionBytes: Int
    /// Most bytes of JSON over all of one subject's values (default 1 MiB), the same way.
    public var maxSubjectBytes: Int
    /// What a failed read does (default ``StateReadFailurePolicy/fail``).
    public var onReadError: StateReadFailurePolicy
    /// Attempts ``StateAccess/update(_:in:shape:ttl:_:)`` makes before giving up on conflicts.
    public var maxUpdateAttempts: Int
    /// How long a session-scoped value lasts after its last write when the writer gives no TTL:
    /// the engine sets it to the token lifetime (no token can reach the value after it).
    public var sessionValueTTL: Duration?

    public init(
        maxValueBytes: Int = 64 << 10, onReadError: StateReadFailurePolicy = .fail, maxUpdateAttempts: Int = 64,
        sessionValueTTL: Duration? = nil, maxSessionBytes: Int = 256 << 10, maxSubjectBytes: Int = 1 << 20
    ) {
        self.sessionValueTTL = sessionValueTTL
        self.maxValueBytes = maxValueBytes
        self.maxSessionBytes = maxSessionBytes
        self.maxSubjectBytes = maxSubjectBytes
        self.onReadError = onReadError
        self.maxUpdateAttempts = maxUpdateAttempts
    }
}
