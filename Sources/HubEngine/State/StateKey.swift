/// Whose state a key belongs to.
public enum StateScope: Sendable, Hashable {
    /// The session the operation or action runs for: the value lives as long as the session's
    /// token can rebuild it (and until its TTL), on every replica that shares the store.
    case session
    /// A subject the code names: a user id taken from a header, a shared list. Every session
    /// that reads the key follows its changes.
    case subject(String)
    /// The request's verified user (``HubUser``), keyed by a digest of their subject: state
    /// that follows the user from session to session and device to device. Nothing else can
    /// name these keys (a ``subject(_:)`` is never one); with no verified user, reads and writes
    /// throw ``StateError/Code/authenticationRequired``.
    case user
}

/// A key in a ``StateStore``: `session/<session id>/<name>`, `subject/<subject>/<name>`,
/// `user/<SHA-256 of the user's subject, hex>/<name>`, or the
/// engine's own `revoked/<session id>`. At most ``maximumLength`` UTF-8 bytes, no control
/// characters (a key travels in a PostgreSQL notification).
public struct StateKey: Sendable, Hashable, CustomStringConvertible {
    /// The key as stored.
    public let rawValue: String

    /// Longest key accepted, in UTF-8 bytes.
    public static let maximumLength = 512

    /// The key of `name` in `scope` for the session `sessionID`; throws ``StateError`` `invalidKey`
    /// for an empty name or subject, a control character, or a key over ``maximumLength``.
    /// `user`: the request's verified user, for ``StateScope/user``.
    public init(_ name: String, in scope: StateScope, sessionID: String, user: HubUser? = nil) throws(StateError) {
        switch scope {
        case .session: try self.init(validating: Self.joined("session", sessionID, name), parts: [name])
        case .subject(let subject): try self.init(validating: Self.joined("subject", subject, name), parts: [subject, name])
        case .user:
            guard let user else { throw Self.noUser }
            try self.init(validating: Self.joined("user", user.stateName, name), parts: [name])
        }
    }

    /// The error of ``StateScope/user`` without a verified user.
    static let noUser = StateError(
        .authenticationRequired, "user-scoped state needs a signed-in user: send 'Authorization: Bearer <token>'")

    /// `first/second/third` in a string of exactly its length: an interpolation reserves more,
    /// and a key is kept by the store and by every session whose operations read it.
    private static func joined(_ first: String, _ second: String, _ third: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(first.utf8.count + second.utf8.count + third.utf8.count + 2)
        bytes.append(contentsOf: first.utf8)
        bytes.append(UInt8(ascii: "/"))
        bytes.append(contentsOf: second.utf8)
        bytes.append(UInt8(ascii: "/"))
        bytes.append(contentsOf: third.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The key that records a revoked session token (the engine's own).
    init(revokedSession id: String) {
        rawValue = "revoked/\(id)"
    }

    /// A key read back from a store or a notification; `nil` when it is not a valid key.
    public init?(rawValue: String) {
        guard rawValue.utf8.count <= Self.maximumLength, !rawValue.isEmpty,
            !rawValue.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { return nil }
        self.rawValue = rawValue
    }

    private init(validating raw: String, parts: [String]) throws(StateError) {
        guard !parts.contains(where: \.isEmpty) else {
            throw StateError(.invalidKey, "a state key needs a non-empty name and subject")
        }
        guard let key = StateKey(rawValue: raw) else {
            throw StateError(
                .invalidKey, "state key '\(raw.prefix(64))' is over \(Self.maximumLength) bytes or holds a control character")
        }
        self = key
    }

    /// The session id of a `revoked/` key; `nil` for other keys.
    var revokedSessionID: String? {
        rawValue.hasPrefix("revoked/") ? String(rawValue.dropFirst("revoked/".count)) : nil
    }

    public var description: String { rawValue }
}
