/// Whether a request may add a session to the store (a new session, a rebuild from a token, a
/// lazy token's first use): the caller's per-client limit. Asked only when a session is about
/// to be stored, never for a held session or a memoized view that stores nothing.
public enum SessionAdmission: Sendable, Equatable {
    /// Admitted. With an owner, the session counts against that owner's used sessions: an owner
    /// holds at most ``ViewEngine/Configuration/protectedSessionsPerOwner`` of them, and its
    /// further sessions stay where its own new sessions evict them first (``SessionStore``).
    case admitted(SessionOwner?)
    /// Refused: the engine throws ``EngineError/Code/sessionRefused`` with this delay.
    case refuse(retryAfterSeconds: Int)

    /// Admitted, with no owner (in-process callers without limits).
    public static var admit: SessionAdmission { .admitted(nil) }

    /// A check that admits everything (tests, in-process callers without limits).
    public static let always: @Sendable () -> SessionAdmission = { .admit }
}

/// Who a session belongs to for the store's per-owner cap: an opaque key the caller chose (the
/// server uses the client, as its per-client limits see it). Kept as a hash seeded per process.
public struct SessionOwner: Sendable, Hashable {
    let key: Int

    /// The owner named `name` (the same name is the same owner within a process).
    public init(_ name: String) {
        var hasher = Hasher()
        hasher.combine(name)
        // 0 means "no owner" in the store's entries.
        key = hasher.finalize() | 1
    }
}
