/// A value as a ``StateStore`` holds it: JSON text, its version and shape.
public struct StateRecord: Sendable, Equatable {
    /// The value's JSON text (UTF-8).
    public var bytes: [UInt8]
    /// 1 for the first write, +1 for each write after it. Version 0 means "no value".
    public var version: Int64
    /// The shape version the writer declared (``StateShape``).
    public var shape: Int
    /// When the value expires, in seconds since the Unix epoch; `nil`: never.
    public var expiresAt: Int64?

    public init(bytes: [UInt8], version: Int64, shape: Int, expiresAt: Int64?) {
        self.bytes = bytes
        self.version = version
        self.shape = shape
        self.expiresAt = expiresAt
    }

    /// Whether the value has expired at `now` (seconds since the epoch).
    public func isExpired(now: Int64) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }
}

/// What a store reports to the engine: a key's new version (0 when deleted), or that changes
/// may have been missed (a notification connection came up, or back) and the engine should
/// compare the versions it knows with ``StateStore/versions(of:)`` and reload revocations.
public enum StateStoreEvent: Sendable, Equatable {
    case changed(StateKey, version: Int64)
    case resync
}

/// Whether a store can serve now, for `/ready` and logs.
public struct StateStoreStatus: Sendable, Equatable {
    /// `true` when the last operation (or connection attempt) succeeded.
    public var available: Bool
    /// Why it is unavailable (the database's message), or `nil`.
    public var detail: String?
    /// For a store with a change feed between replicas (PostgreSQL's `LISTEN`): whether it is
    /// connected now; `nil` for a store without one.
    public var changeFeedConnected: Bool?

    public init(available: Bool, detail: String? = nil, changeFeedConnected: Bool? = nil) {
        self.available = available
        self.detail = detail
        self.changeFeedConnected = changeFeedConnected
    }
}
