/// A bound on the bytes of every value under one key prefix: a session's keys
/// (`state.maxSessionBytes`) or a subject's (`state.maxSubjectBytes`). ``StateAccess`` passes one
/// with each write; the store checks it in the same step as the write's compare-and-set (one
/// transaction, or under its lock), so concurrent writers to one scope cannot pass it together.
///
/// A write past the bound throws ``StateError/Code/tooLarge`` and changes nothing. A write that
/// does not grow its key is always allowed, so a scope already over a lowered bound can shrink.
/// Expired values count as none.
public struct StateQuota: Sendable, Hashable {
    /// The keys counted: those starting with it (`session/<id>/`, `subject/<subject>/`). Ends with `/`.
    public let prefix: String
    /// Most bytes of JSON over all those values.
    public let maxBytes: Int
    /// The setting that sets it, for the error's detail (`state.maxSessionBytes`).
    public let setting: String

    public init(prefix: String, maxBytes: Int, setting: String) {
        self.prefix = prefix
        self.maxBytes = maxBytes
        self.setting = setting
    }

    /// The quota of `scope` for the session `sessionID` under `settings`.
    init(scope: StateScope, sessionID: String, user: HubUser?, settings: StateSettings) {
        switch scope {
        case .user:
            self.init(
                prefix: "user/\(user?.stateName ?? "")/", maxBytes: settings.maxSubjectBytes, setting: "state.maxSubjectBytes")
        case .session: self.init(prefix: "session/\(sessionID)/", maxBytes: settings.maxSessionBytes, setting: "state.maxSessionBytes")
        case .subject(let subject):
            self.init(prefix: "subject/\(subject)/", maxBytes: settings.maxSubjectBytes, setting: "state.maxSubjectBytes")
        }
    }

    /// The least key above every key that starts with ``prefix`` (its last byte, `/`, raised by
    /// one): the counted keys are those `>= prefix` and `< prefixEnd` in byte order.
    public var prefixEnd: String {
        var bytes = Array(prefix.utf8)
        if let last = bytes.popLast() { bytes.append(last &+ 1) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The error for a write that would make the scope's values `others + written` bytes, or
    /// `nil` when the write is allowed: within ``maxBytes``, or not growing its key (`own`: the
    /// bytes stored under the written key now).
    public func refusal(others: Int, own: Int, written: Int, key: StateKey) -> StateError? {
        guard others + written > maxBytes, written > own else { return nil }
        return StateError(
            .tooLarge,
            "writing '\(key)' would make the values under '\(prefix)' \(others + written) bytes; \(setting) is \(maxBytes)")
    }
}
